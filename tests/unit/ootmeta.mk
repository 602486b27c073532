# gadgetd/profile/ootmeta.c: an out-of-tree plugin's declaration from a
# describe program (faked by a script), cached per file, its failures
# refused with a reason; the profile checker and the access rules use it.
UNIT_TESTS += test_ootmeta
test_ootmeta_SRCS := tests/unit/test_ootmeta.c $(PROFILE_SRCS) gadgetd/front/access.c \
	gadgetd/front/request.c gadgetd/storage/storage.c
test_ootmeta_LIBS := $(PROFILE_LIBS)

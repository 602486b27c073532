# functions/runtime/ffs.c: descriptor/strings blobs and the ep0 event reader.
UNIT_TESTS += test_ffs
test_ffs_SRCS := tests/unit/test_ffs.c functions/runtime/ffs.c
test_ffs_LIBS :=

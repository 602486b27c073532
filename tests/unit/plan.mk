# gadgetd/gadget/plan.c: what a switch keeps, removes and creates.
UNIT_TESTS += test_plan
test_plan_SRCS := tests/unit/test_plan.c gadgetd/gadget/plan.c $(PROFILE_SRCS) common/log.c
test_plan_LIBS := $(PROFILE_LIBS)

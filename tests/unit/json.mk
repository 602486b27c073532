# common/json.c: escaping of the status JSON's strings.
UNIT_TESTS += test_json
test_json_SRCS := tests/unit/test_json.c common/json.c
test_json_LIBS :=

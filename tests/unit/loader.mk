# functions/runtime/loader.c: plugins of this ABI version load, others are refused.
UNIT_TESTS += test_loader
test_loader_SRCS := tests/unit/test_loader.c functions/runtime/loader.c common/log.c
test_loader_LIBS := -ldl
LOADER_FAKES := $(B)/unit/fake_abi_ok.so $(B)/unit/fake_abi_other.so \
	$(B)/unit/fake_abi_none.so
$(B)/unit/test_loader: | $(LOADER_FAKES)
$(B)/unit/fake_abi_%.so: tests/unit/fake_abi_plugin.c functions/runtime/plugin.h
	@mkdir -p $(@D)
	$(CC) $(DEFS) $(TEST_INCS) $(CPPFLAGS) $(BASE_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-fPIC -shared -DFAKE_ABI_$* -o $@ $<

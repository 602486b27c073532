PLUGINS += mtp
mtp_SRCS := functions/mtp/mtp.c functions/mtp/mtp_container.c \
	functions/mtp/mtp_dataset.c functions/mtp/mtp_ops.c \
	functions/mtp/mtp_store.c functions/mtp/mtp_events.c
mtp_LIBS :=

# The top Makefile's pattern rule loses the %.c -> pic/%.o mapping under
# secondary expansion (the stem replaces the %), which links the sources
# without -fPIC; this explicit rule links our PIC objects.
$(B)/plugins/mtp.so: $(mtp_SRCS:%.c=$(B)/pic/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $^ $(mtp_LIBS)

# gadgetctl's bash completion driven through COMP_WORDS against a stub
# gadgetctl (tests/unit/completion.sh; needs bash-completion). Part of
# make unit.
unit: completion
completion:
	tests/unit/completion.sh gadgetd/cli/gadgetctl.bash-completion >$(B)/completion.log 2>&1 || \
		{ cat $(B)/completion.log; echo "completion FAILED"; exit 1; }
.PHONY: completion

# gadgetctl check and the subnet clash within a set (tests/unit/ctlcheck.sh):
# refused with FILE:LINE and exit 5, as gadgetd refuses it at load.
unit: ctlcheck
ctlcheck: $(B)/gadgetctl
	tests/unit/ctlcheck.sh $(B)/gadgetctl
.PHONY: ctlcheck

# README.md and docs/ (tests/unit/readme.sh): the README at most 249
# lines, every link and tree path in README.md and docs/*.md leading to
# something, the README's profile example accepted by gadgetctl check;
# readme-selftest.sh shows the script failing on each. Part of make unit.
unit: readme
readme: $(B)/gadgetctl
	tests/unit/readme.sh . $(B)/gadgetctl
	@tests/unit/readme-selftest.sh $(B)/gadgetctl >$(B)/readme-selftest.log 2>&1 || \
		{ cat $(B)/readme-selftest.log; echo "readme-selftest FAILED"; exit 1; }
.PHONY: readme

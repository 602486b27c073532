/* gadgetd-mdns: the program around mdns_main() (mdns.h). */
#include "mdns.h"

int main(int argc, char **argv)
{
	return mdns_main(argc, argv);
}

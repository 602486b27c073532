#include "json.h"

void json_str(FILE *out, const char *s)
{
	static const char short_esc[] = { ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
					  ['\f'] = 'f', ['\r'] = 'r' };
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < sizeof(short_esc) && short_esc[*p])
			fprintf(out, "\\%c", short_esc[*p]);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

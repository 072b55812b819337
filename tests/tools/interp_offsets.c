// SPDX-License-Identifier: BSD-2-Clause
/*
 * interp_offsets: print the CPython 3.11 struct offsets the collector
 * reads frames with (collector/profile/interp.c), one `STRUCT.FIELD OFF`
 * a line, for test_collector_profile_python to check against the
 * interpreter's DWARF (python3.11-dbg, through gdb's ptype/o).
 */
#include <stdio.h>

#include "collector/profile/interp.h"

int main(void)
{
	const struct interp_py311 *o = &interp_py311;

	printf("pyruntimestate.gilstate+tstate_current %u\n", o->runtime_tstate);
	printf("_ts.cframe %u\n", o->proc.ts_cframe);
	printf("_ts.native_thread_id %u\n", o->proc.ts_tid);
	printf("_PyCFrame.current_frame %u\n", o->proc.cf_frame);
	printf("_PyInterpreterFrame.f_code %u\n", o->proc.fr_code);
	printf("_PyInterpreterFrame.previous %u\n", o->proc.fr_previous);
	printf("_PyInterpreterFrame.is_entry %u\n", o->proc.fr_is_entry);
	printf("PyCodeObject.co_firstlineno %u\n", o->co_firstlineno);
	printf("PyCodeObject.co_filename %u\n", o->co_filename);
	printf("PyCodeObject.co_qualname %u\n", o->co_qualname);
	printf("PyASCIIObject.length %u\n", o->str_length);
	printf("PyASCIIObject.state %u\n", o->str_state);
	printf("PyASCIIObject.sizeof %u\n", o->str_ascii_data);
	printf("PyCompactUnicodeObject.utf8_length %u\n", o->str_utf8_length);
	printf("PyCompactUnicodeObject.utf8 %u\n", o->str_utf8);
	return 0;
}

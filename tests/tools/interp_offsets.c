// SPDX-License-Identifier: BSD-2-Clause
/*
 * interp_offsets: print the struct offsets the collector reads
 * interpreter frames with (collector/profile/interp.c), one
 * `STRUCT.FIELD OFF` a line: CPython 3.11's, for
 * test_collector_profile_python to check against the interpreter's DWARF
 * (python3.11-dbg, through gdb's ptype/o); with --ruby, Ruby 3.1's, for
 * tests/tools/rboffsets.rb to read a live Ruby process's own frames with
 * (test_collector_profile_ruby).
 */
#include <stdio.h>
#include <string.h>

#include "collector/profile/interp.h"

static void python(void)
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
	printf("pyruntimestate.interpreters.main %u\n", o->runtime_main);
	printf("PyInterpreterState.threads.head %u\n", o->proc.is_threads_head);
	printf("_ts.next %u\n", o->proc.ts_next);
}

static void ruby(void)
{
	const struct interp_rb31 *o = &interp_rb31;

	printf("rb_ractor_t.threads.running_ec %u\n", o->proc.rr_running_ec);
	printf("rb_execution_context_t.vm_stack %u\n", o->proc.ec_vm_stack);
	printf("rb_execution_context_t.vm_stack_size %u\n", o->proc.ec_vm_stack_size);
	printf("rb_execution_context_t.cfp %u\n", o->proc.ec_cfp);
	printf("rb_execution_context_t.thread_ptr %u\n", o->proc.ec_thread);
	printf("rb_thread_t.tid %u\n", o->proc.th_tid);
	printf("rb_control_frame_t.sizeof %u\n", o->proc.cfp_size);
	printf("rb_control_frame_t.pc %u\n", o->proc.cfp_pc);
	printf("rb_control_frame_t.iseq %u\n", o->proc.cfp_iseq);
	printf("rb_control_frame_t.ep %u\n", o->proc.cfp_ep);
	printf("rb_iseq_t.body %u\n", o->iseq_body);
	printf("rb_iseq_constant_body.location.pathobj %u\n", o->body_pathobj);
	printf("rb_iseq_constant_body.location.label %u\n", o->body_label);
	printf("rb_iseq_constant_body.location.first_lineno %u\n", o->body_first_lineno);
	printf("RString.as.heap.len %u\n", o->str_heap_len);
	printf("RString.as.heap.ptr %u\n", o->str_heap_ptr);
	printf("RString.as.embed.ary %u\n", o->str_embed);
	printf("RArray.as.ary %u\n", o->ary_embed);
	printf("RArray.as.heap.ptr %u\n", o->ary_heap_ptr);
	printf("rb_ractor_t.threads.set %u\n", o->proc.rr_threads_set);
	printf("rb_thread_t.lt_node %u\n", o->proc.th_lt_node);
	printf("rb_thread_t.ec %u\n", o->proc.th_ec);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--ruby"))
		ruby();
	else
		python();
	return 0;
}

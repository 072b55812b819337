# SPDX-License-Identifier: BSD-2-Clause
# rboffsets.rb OFFSETS: reads this Ruby process's own frames from its
# memory (/proc/self/mem) with the Ruby 3.1 struct offsets the collector
# uses (OFFSETS: `build/tests/interp_offsets --ruby`, one `NAME OFF` a
# line), the way bpf/interp.bpf.h and collector/profile/interp.c read
# another process's, and checks what it finds against what Ruby says:
# the running execution context's thread is this thread
# (Thread#native_thread_id), and the Ruby frames from the innermost of
# outer_c on are outer_c, `block in outer_b`, outer_b, outer_a, <main>
# (Array#each's C frame left out), with this file, their first lines and
# their frames' magic; and a second thread, asleep, found in the main
# ractor's thread list by its tid, its innermost frame its own method.
# libruby has no DWARF to check the offsets against: this is their
# truth. Prints `ok N frames`, or a reason and exits 1.
require 'fiddle'

OFF = File.readlines(ARGV[0]).to_h { |l| k, v = l.split; [k, Integer(v)] }
MEM = File.open('/proc/self/mem', 'rb')

def o(name)
  OFF.fetch(name)
end

def bytes(addr, n)
  MEM.pread(n, addr)
rescue SystemCallError
  nil
end

def u64(addr)
  b = bytes(addr, 8)
  b ? b.unpack1('Q') : 0
end

def rstring(v)
  flags = u64(v)
  return nil unless flags & 0x1f == 0x05
  if flags & (1 << 13) != 0
    bytes(u64(v + o('RString.as.heap.ptr')), u64(v + o('RString.as.heap.len')))
  else
    bytes(v + o('RString.as.embed.ary'), (flags >> 14) & 0x1f)
  end
end

def rpath(v)
  flags = u64(v)
  return rstring(v) unless flags & 0x1f == 0x07
  first = flags & (1 << 13) != 0 ? u64(v + o('RArray.as.ary')) : u64(u64(v + o('RArray.as.heap.ptr')))
  rstring(first)
end

def ractor
  u64(Fiddle::Handle::DEFAULT['ruby_single_main_ractor'])
end

def frames
  ec = u64(ractor + o('rb_ractor_t.threads.running_ec'))
  th = u64(ec + o('rb_execution_context_t.thread_ptr'))
  tid = bytes(th + o('rb_thread_t.tid'), 4)&.unpack1('l')
  abort "running_ec's thread tid #{tid}, not this thread's #{Thread.current.native_thread_id}" unless tid == Thread.current.native_thread_id
  frames_of(ec)
end

# the execution context of thread @tid, from the main ractor's threads.set
# (bpf/interp.bpf.h's interp_own_ruby()), or nil
def own_ec(tid)
  head = ractor + o('rb_ractor_t.threads.set')
  node = u64(head)
  32.times do
    break if node.zero? || node == head
    th = node - o('rb_thread_t.lt_node')
    return u64(th + o('rb_thread_t.ec')) if bytes(th + o('rb_thread_t.tid'), 4)&.unpack1('l') == tid
    node = u64(node)
  end
  nil
end

def frames_of(ec)
  stack = u64(ec + o('rb_execution_context_t.vm_stack'))
  last = stack + 8 * u64(ec + o('rb_execution_context_t.vm_stack_size'))
  cfp = u64(ec + o('rb_execution_context_t.cfp'))
  out = []
  while cfp < last
    pc = u64(cfp + o('rb_control_frame_t.pc'))
    iseq = pc != 0 ? u64(cfp + o('rb_control_frame_t.iseq')) : 0
    flags = iseq != 0 ? u64(iseq) : 0
    if flags & 0x1f == 0x1a && (flags >> 12) & 0xf == 7
      body = u64(iseq + o('rb_iseq_t.body'))
      magic = u64(u64(cfp + o('rb_control_frame_t.ep'))) & 0x7fff0001 # VM_FRAME_MAGIC_MASK
      out << [rstring(u64(body + o('rb_iseq_constant_body.location.label'))),
              rpath(u64(body + o('rb_iseq_constant_body.location.pathobj'))),
              u64(body + o('rb_iseq_constant_body.location.first_lineno')) >> 1, magic]
    end
    cfp += o('rb_control_frame_t.sizeof')
  end
  out
end

def line_of(name)
  File.readlines(__FILE__).index { |l| l.start_with?("def #{name}") } + 1
end

def outer_c
  frames
end

def outer_b
  [1].each { return outer_c }
end

def outer_a
  outer_b
end

got = outer_a
at = got.index { |f| f[0] == 'outer_c' } or abort "no outer_c among the frames read: #{got.inspect}"
# a block's label names its method, its first line is the block's (base_label would say outer_b)
# the frames' magic (ep[0]): VM_FRAME_MAGIC_METHOD, _BLOCK
method = 0x11110001
want = [['outer_c', __FILE__, line_of('outer_c'), method],
        ['block in outer_b', __FILE__, line_of('outer_b') + 1, 0x22220001],
        ['outer_b', __FILE__, line_of('outer_b'), method], ['outer_a', __FILE__, line_of('outer_a'), method]]
abort "frames read #{got[at, 4].inspect}, Ruby says #{want.inspect}" unless got[at, 4] == want
abort "the outermost frame read is #{got[at + 4].inspect}, not <main> of #{__FILE__}" unless
  got[at + 4] && got[at + 4][0, 2] == ['<main>', __FILE__] && got[at + 4][3] == 0x77770001 # _EVAL

# the thread list: a thread asleep (not the GVL holder) found by its tid,
# its execution context's innermost Ruby frame its own method
def nap_in_thread(q)
  q << 1
  sleep
end

q = Queue.new
napper = Thread.new { nap_in_thread(q) }
q.pop
sleep 0.05 until napper.status == 'sleep'
ec = own_ec(napper.native_thread_id) or abort "thread #{napper.native_thread_id} not in the main ractor's threads.set"
nap = frames_of(ec).first
abort "the sleeping thread's innermost frame read is #{nap.inspect}, not nap_in_thread" unless
  nap && nap[0, 3] == ['nap_in_thread', __FILE__, line_of('nap_in_thread')]
napper.kill
puts "ok #{got.size} frames, a sleeping thread's own from the thread list"

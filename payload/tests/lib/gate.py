# gate.py SECONDS HOOK ELF CMD...: runs CMD behind an agent's prepare
# gate (BENCHBOOT_GATE, docs/protocol.md; 5 s budget) as an agent would:
# once CMD says it is prepared, runs HOOK with sh (GATE_READY=R or F in
# its environment), then gives the start SECONDS later, in the byte order
# of ELF, the workload's binary (an agent of its architecture writes it
# in its own; under qemu-user that is not the host's).  Exits with CMD's
# status.  For tests of what a workload does before the start.
import os, struct, subprocess, sys, time

secs, hook, elf, cmd = (float(sys.argv[1]), sys.argv[2], sys.argv[3],
                        sys.argv[4:])
with open(elf, "rb") as f:
    order = ">" if f.read(6)[5] == 2 else "<"	# EI_DATA: 2 is MSB
go_r, go_w = os.pipe()
rd_r, rd_w = os.pipe()
env = dict(os.environ, BENCHBOOT_GATE="%d,%d,5000" % (go_r, rd_w))
p = subprocess.Popen(cmd, env=env, pass_fds=(go_r, rd_w))
os.close(go_r)
os.close(rd_w)
st = os.read(rd_r, 1).decode() or "F"
subprocess.call(["sh", "-c", hook], env=dict(os.environ, GATE_READY=st))
time.sleep(secs)
try:
    os.write(go_w, struct.pack(order + "q", time.time_ns() + 50000000))
except BrokenPipeError:
    pass
sys.exit(p.wait())

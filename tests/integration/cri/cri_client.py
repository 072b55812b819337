#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""The tests' CRI client: boots one pod through containerd's CRI plugin as
the kubelet does -- RunPodSandbox, then each init container created,
started and waited for to its end, then the app containers created and
started -- waits until the app's port listens in the pod's network
namespace, and removes the pod (StopContainer with no grace, then
StopPodSandbox and RemovePodSandbox), as a pod's deletion does.

  cri_client.py --socket SOCK --gen DIR --times FILE --cgroups FILE
                --name NAME [--namespace NS] [--uid UID] [--qos burstable]
                --image IMAGE [--init NAME=CMD]... --app NAME=CMD --port N

CMD is run by /bin/sh -c. The pod's cgroup parent is the kubelet's with
its cgroupfs driver, /kubepods/<qos>/pod<uid> (/kubepods/pod<uid> for
guaranteed), appended to the --cgroups FILE before the pod is asked for
(runc never removes it: the kubelet does, here the test). Not the systemd
driver's slices: containerd 1.6 turns a cgroup parent that ends in .slice
into the systemd form <slice>:cri-containerd:<id>, which needs its
SystemdCgroup driver, and that needs systemd as PID 1. DIR holds cri_pb2*.py, generated from cri.proto.
The pod's name gets a suffix of its uid's first 8 hex digits: --runs N gives
N pods, each its own. FILE gets one JSON line per pod, written as soon as
the listen is seen (before the pod's removal): its names, its
sandbox's and containers' ids and, for each call, [entry, return] in this
process's CLOCK_MONOTONIC ns (time.monotonic_ns()), and "listen_seen":
[t0, t1], where t0 is when the last look that did not see the port
listening began (null when its first look saw it: the app may listen
before StartContainer returns), t1 when the first that saw it ended
(/proc/PID/net/tcp and tcp6 of the sandbox's process: its netns; a look
every 0.2 ms): the listen happened in between, however late this process
was scheduled.
"""
import argparse
import json
import os
import sys
import time
import uuid

DEADLINE = 60  # seconds for any one call


def now():
    return time.monotonic_ns()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--times", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--namespace", default="default")
    ap.add_argument("--uid")
    ap.add_argument("--qos", default="burstable")
    ap.add_argument("--cgroups", required=True)
    ap.add_argument("--image", required=True)
    ap.add_argument("--init", action="append", default=[])
    ap.add_argument("--app", action="append", default=[])
    ap.add_argument("--port", type=int, required=True)
    a = ap.parse_args()
    sys.path.insert(0, a.gen)
    import grpc
    import cri_pb2 as pb
    import cri_pb2_grpc as pbg

    uid = a.uid or str(uuid.uuid4())
    name = "%s-%s" % (a.name, uid[:8])
    rec = {"pod": name, "namespace": a.namespace, "uid": uid, "calls": []}
    rt = pbg.RuntimeServiceStub(grpc.insecure_channel("unix://" + a.socket))

    def call(what, fn, req, **kv):
        t0 = now()
        r = fn(req, timeout=DEADLINE)
        rec["calls"].append(dict(call=what, t=[t0, now()], **kv))
        return r

    parent = "/kubepods%s/pod%s" % ("" if a.qos == "guaranteed" else "/" + a.qos, uid)
    with open(a.cgroups, "a") as f:
        f.write(parent + "\n")
    meta = pb.PodSandboxMetadata(name=name, uid=uid, namespace=a.namespace)
    # the kubelet's namespaces: network and ipc of the pod, pid of each container
    ns = pb.NamespaceOption(network=pb.POD, pid=pb.CONTAINER, ipc=pb.POD)
    sbcfg = pb.PodSandboxConfig(
        metadata=meta, hostname=name,
        log_directory="",
        linux=pb.LinuxPodSandboxConfig(
            cgroup_parent=parent,
            security_context=pb.LinuxSandboxSecurityContext(namespace_options=ns)))
    sb = call("RunPodSandbox", rt.RunPodSandbox, pb.RunPodSandboxRequest(config=sbcfg)).pod_sandbox_id
    rec["sandbox_id"] = sb
    ids = []

    def boot(spec):
        cname, cmd = spec.split("=", 1)
        cfg = pb.ContainerConfig(
            metadata=pb.ContainerMetadata(name=cname), image=pb.ImageSpec(image=a.image),
            command=["/bin/sh", "-c", cmd],
            linux=pb.LinuxContainerConfig(
                security_context=pb.LinuxContainerSecurityContext(namespace_options=ns)))
        cid = call("CreateContainer", rt.CreateContainer,
                   pb.CreateContainerRequest(pod_sandbox_id=sb, config=cfg, sandbox_config=sbcfg),
                   container=cname).container_id
        call("StartContainer", rt.StartContainer, pb.StartContainerRequest(container_id=cid),
             container=cname)
        ids.append(cid)
        rec.setdefault("containers", {})[cname] = cid
        return cid

    try:
        for spec in a.init:
            cid = boot(spec)
            # the kubelet runs each init container to its end before the next
            t_end = time.monotonic() + DEADLINE
            while True:
                st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid),
                                        timeout=DEADLINE).status
                if st.state == pb.CONTAINER_EXITED:
                    if st.exit_code:
                        sys.exit("cri_client: init container %s exited %d" % (spec, st.exit_code))
                    break
                if time.monotonic() > t_end:
                    sys.exit("cri_client: init container %s did not end" % spec)
                time.sleep(0.005)
            rec["calls"].append(dict(call="InitDone", t=[now(), now()],
                                     container=spec.split("=", 1)[0]))
        for spec in a.app:
            boot(spec)
        rec["listen_seen"] = wait_listen(parent, sb, a.port)
        # now: a collector's --until listen may kill the pod, and then this
        # process if its removal takes longer than the collector's grace
        save(a.times, rec)
    finally:
        for cid in ids:
            try:
                rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0), timeout=DEADLINE)
                rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid), timeout=DEADLINE)
            except grpc.RpcError as e:
                print("cri_client: removing %s: %s" % (cid, e.details()), file=sys.stderr)
        if "listen_seen" not in rec:
            save(a.times, rec)	# (what it did, for the failure's message)
        rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sb), timeout=DEADLINE)
        rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sb), timeout=DEADLINE)


def save(path, rec):
    with open(path, "a") as f:
        f.write(json.dumps(rec) + "\n")


def wait_listen(parent, sb, port):
    """When the port was first seen listening in the sandbox's netns."""
    want = ":%04X " % port
    procs = "/sys/fs/cgroup/unified%s/%s/cgroup.procs" % (parent, sb)
    for line in open("/proc/self/mounts"):
        f = line.split()
        if f[2] == "cgroup2":
            procs = "%s%s/%s/cgroup.procs" % (f[1], parent, sb)
            break
    pid = open(procs).read().split()[0]
    miss = None
    # (busybox httpd listens on IPv6's any address when it can)
    tcp = ["/proc/%s/net/tcp" % pid, "/proc/%s/net/tcp6" % pid]
    t_end = time.monotonic() + DEADLINE
    while time.monotonic() < t_end:
        t0 = now()
        for path in tcp:
            with open(path) as f:
                for line in f.readlines()[1:]:
                    x = line.split()
                    # local address ADDR:PORT, state 0A: LISTEN
                    if x[3] == "0A" and (x[1] + " ")[-6:] == want:
                        return [miss, now()]
        miss = t0
        time.sleep(0.0002)
    sys.exit("cri_client: port %d never listened" % port)


if __name__ == "__main__":
    main()

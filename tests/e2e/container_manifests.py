#!/usr/bin/env python3
"""compose.yaml and k8s/ against what the images really do, without a cluster:
every WHITTLE_* they set is one the image's entrypoint or daemon reads; the
ports they publish, probe and scrape are the ones WHITTLE_BIND/WHITTLE_METRICS
(image ENV, entrypoint default or the manifest's own value) make the daemon
use, and the ones the Containerfile EXPOSEs; every path the daemon reads or
writes (keys, allow-lists, --runs, the cache, the workspaces) is on a mount,
writable where it must be; the pods run as the image's uid."""
import os
import re
import sys

import yaml

SRC = os.environ["WH_SOURCE_DIR"]
C = os.path.join(SRC, "containers")
fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL: ") + what, file=sys.stderr)
    fails += 0 if cond else 1


def read(*p):
    with open(os.path.join(*p)) as f:
        return f.read()


def containerfile(image):
    """ENV, EXPOSE, VOLUME and the useradd uid of the runtime stage."""
    text = read(C, "Containerfile." + image).replace("\\\n", " ")
    runtime = text[text.index("AS runtime"):]
    env = dict(re.findall(r"(WHITTLE_[A-Z_]+)=(\S*)", " ".join(
        line for line in runtime.splitlines() if line.startswith("ENV "))))
    expose = {int(p) for line in runtime.splitlines() if line.startswith("EXPOSE ")
              for p in line.split()[1:]}
    volumes = re.findall(r'VOLUME \["([^"]+)"\]', runtime)
    uid = int(re.search(r"useradd [^\n]*--uid (\d+)", runtime).group(1))
    user = re.search(r"^USER (\S+)", runtime, re.M).group(1)
    return env, expose, volumes, uid, user


def entrypoint(image):
    """The variables the entrypoint reads and the defaults it gives them."""
    text = read(C, image + "-entrypoint.sh")
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    names = set(re.findall(r"WHITTLE_[A-Z_]+", code))
    defaults = {}
    for name, val in re.findall(r"\$\{(WHITTLE_[A-Z_]+):?-([^}]*)\}", code):
        if val:
            defaults.setdefault(name, val)
    for name, val in re.findall(r"export (WHITTLE_[A-Z_]+)=(/[^\s\"]+)", code):
        defaults.setdefault(name, val)
    return names, defaults


def daemon_vars():
    """Variables the programs read themselves: getenv() and $WHITTLE_X in help."""
    found = set()
    for d in ("common", "coordinator", "node"):
        for f in os.listdir(os.path.join(SRC, d)):
            if f.endswith(".c"):
                t = read(SRC, d, f)
                found |= set(re.findall(r'getenv\("(WHITTLE_[A-Z_]+)"\)', t))
                found |= set(re.findall(r"\$(WHITTLE_[A-Z_]+)", t))
    return found


def port(value):
    """The port of tcp://host:port or [host:]port."""
    return int(re.search(r"(\d+)$", value).group(1))


def under(path, mounts):
    """The mount (target, writable) that holds path, or None."""
    best = None
    for target, writable in mounts:
        t = target.rstrip("/")
        if path == t or path.startswith(t + "/"):
            if best is None or len(t) > len(best[0]):
                best = (t, writable)
    return best


IMG = {}
DAEMON = daemon_vars()
for image in ("coordinator", "node"):
    env, expose, volumes, uid, user = containerfile(image)
    names, defaults = entrypoint(image)
    IMG[image] = dict(env=env, expose=expose, volumes=volumes, uid=uid, user=user,
                      known=names | set(env) | DAEMON, defaults=defaults)
    check(user == "whittle" and uid == 10001, f"{image} image: USER whittle, uid {uid}")


def effective(image, env):
    """The value of each variable inside the container: manifest, image ENV, entrypoint default."""
    out = dict(IMG[image]["defaults"])
    out.update(IMG[image]["env"])
    out.update({k: v for k, v in env.items() if v is not None})
    return out


def check_paths(where, image, eff, mounts, writes, reads):
    for var in writes:
        if eff.get(var):
            m = under(eff[var], mounts)
            check(m is not None and m[1], f"{where}: {var}={eff[var]} is on a writable mount ({m})")
    for var in reads:
        if eff.get(var):
            check(under(eff[var], mounts) is not None, f"{where}: {var}={eff[var]} is on a mount")


def check_env_names(where, image, env):
    for k in env:
        if k.startswith("WHITTLE_"):
            check(k in IMG[image]["known"], f"{where}: {k} is read by the {image} image")


# ------------------------------------------------------------------ compose
compose = yaml.safe_load(read(C, "compose.yaml"))
projects_target = compose["x-projects"]["target"]
for image in ("coordinator", "node"):
    svc = compose["services"][image]
    where = f"compose {image}"
    env = {k: str(v) for k, v in (svc.get("environment") or {}).items()}
    check_env_names(where, image, env)
    eff = effective(image, env)
    mounts = [("/run/secrets/" + s, False) for s in svc.get("secrets", [])]
    for v in svc.get("volumes", []):
        if isinstance(v, str):
            parts = v.split(":")
            mounts.append((parts[1], not (len(parts) > 2 and "ro" in parts[2].split(","))))
        else:
            mounts.append((v["target"], not v.get("read_only", False)))
    mounts += [(v, True) for v in IMG[image]["volumes"]]
    if image == "coordinator":
        want = {port(eff["WHITTLE_BIND"]), port(eff["WHITTLE_METRICS"])}
        got = {int(str(p).rsplit(":", 1)[1]) for p in svc["ports"]}
        check(got == want, f"{where}: publishes container ports {sorted(got)} = bind+metrics {sorted(want)}")
        check(IMG[image]["expose"] == want, f"{where}: image EXPOSEs {sorted(IMG[image]['expose'])}")
        hc = " ".join(svc["healthcheck"]["test"])
        check(f"/dev/tcp/127.0.0.1/{port(eff['WHITTLE_METRICS'])}" in hc and "/healthz" in hc,
              f"{where}: healthcheck asks /healthz on the metrics port")
        check(eff["WHITTLE_RUNS"].startswith(projects_target + "/"),
              f"{where}: WHITTLE_RUNS={eff['WHITTLE_RUNS']} is on the projects volume ({projects_target})")
        check_paths(where, image, eff, mounts, ["WHITTLE_RUNS", "WHITTLE_CACHE_DIR"],
                    ["WHITTLE_SECRET_KEY", "WHITTLE_REDIS_PASSWORD_FILE", "WHITTLE_NODES_DIR",
                     "WHITTLE_CLIENTS_DIR"])
    else:
        check_paths(where, image, eff, mounts, ["WHITTLE_WORKDIR"],
                    ["WHITTLE_SECRET_KEY", "WHITTLE_SERVER_KEY"])
        # jobs are confined (issue 34): bwrap or no node, and what bwrap needs
        opts = set(svc.get("security_opt", []))
        check(env.get("WHITTLE_SANDBOX") == "bwrap", f"{where}: WHITTLE_SANDBOX=bwrap")
        check({"systempaths=unconfined", "seccomp=unconfined"} <= opts,
              f"{where}: security_opt unmasks /proc and allows user namespaces for bwrap")
        check(svc.get("cap_drop") == ["ALL"] and "no-new-privileges:true" in opts,
              f"{where}: no capability, no privilege gained")
    check("WHITTLE_INSECURE" not in env, f"{where}: keys, not --insecure")

# --------------------------------------------------------------- kubernetes
docs = {}
for f in sorted(os.listdir(os.path.join(C, "k8s"))):
    for d in yaml.safe_load_all(read(C, "k8s", f)):
        if d and "metadata" in d:
            docs[(d["kind"], d["metadata"]["name"])] = d
# Redis reads its password from the same Secret's file: no secret in any env
redis = docs[("StatefulSet", "redis")]["spec"]["template"]["spec"]
check(not any("valueFrom" in e for c in redis["containers"] for e in c.get("env", [])),
      "k8s redis: no env value from a Secret")
check(any(v.get("secret", {}).get("secretName") == "redis-auth" for v in redis.get("volumes", [])),
      "k8s redis: the password comes from Secret redis-auth as a file")
for image in ("coordinator", "node"):
    where = f"k8s {image}"
    pod = docs[("Deployment", image)]["spec"]["template"]
    spec = pod["spec"]
    ctr = spec["containers"][0]
    check(spec["securityContext"]["runAsUser"] == IMG[image]["uid"]
          and ctr["securityContext"].get("runAsNonRoot") is True,
          f"{where}: runs as uid {spec['securityContext']['runAsUser']} (the image's), runAsNonRoot")
    env = {e["name"]: e.get("value") for e in ctr.get("env", [])}
    check_env_names(where, image, env)
    eff = effective(image, env)
    ro_root = ctr["securityContext"].get("readOnlyRootFilesystem", False)
    mounts = [(m["mountPath"], not m.get("readOnly", False)) for m in ctr.get("volumeMounts", [])]
    if not ro_root:
        mounts += [(v, True) for v in IMG[image]["volumes"]]
    if image == "coordinator":
        bind, metrics = port(eff["WHITTLE_BIND"]), port(eff["WHITTLE_METRICS"])
        ports = {p["name"]: p["containerPort"] for p in ctr["ports"]}
        check(ports == {"zmq": bind, "metrics": metrics},
              f"{where}: containerPorts {ports} = bind {bind}, metrics {metrics}")
        svc = {p["name"]: p["port"] for p in docs[("Service", "coordinator")]["spec"]["ports"]}
        check(svc == {"zmq": bind, "metrics": metrics}, f"{where}: Service ports {svc}")
        for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
            g = ctr[probe]["httpGet"]
            check(g["path"] == path and ports.get(g["port"], g["port"]) == metrics,
                  f"{where}: {probe} asks {path} on the metrics port")
        ann = pod["metadata"]["annotations"]
        check(int(ann["prometheus.io/port"]) == metrics and ann["prometheus.io/path"] == "/metrics",
              f"{where}: Prometheus scrapes /metrics on {metrics}")
        # a read-only root: everything the coordinator writes must be a mount
        check_paths(where, image, eff, mounts, ["WHITTLE_RUNS", "WHITTLE_CACHE_DIR"],
                    ["WHITTLE_SECRET_KEY", "WHITTLE_NODES_DIR", "WHITTLE_CLIENTS_DIR"])
        check(not ro_root or under("/tmp/x", mounts) is not None, f"{where}: /tmp is writable")
        # the Redis password: a file on a Secret volume, never an env value
        pw = eff.get("WHITTLE_REDIS_PASSWORD_FILE", "")
        m = next((m for m in ctr.get("volumeMounts", [])
                  if pw.startswith(m["mountPath"].rstrip("/") + "/")), None)
        vol = next((v for v in spec.get("volumes", []) if m and v["name"] == m["name"]), {})
        check("WHITTLE_REDIS_PASSWORD" not in env and "secret" in vol,
              f"{where}: the Redis password is the file {pw} of Secret "
              f"{vol.get('secret', {}).get('secretName')}, not an env value")
    else:
        check_paths(where, image, eff, mounts, ["WHITTLE_WORKDIR"],
                    ["WHITTLE_SECRET_KEY", "WHITTLE_SERVER_KEY"])
        # jobs are confined (issue 34): bwrap or no node, and what bwrap needs
        sc = ctr["securityContext"]
        check(env.get("WHITTLE_SANDBOX") == "bwrap", f"{where}: WHITTLE_SANDBOX=bwrap")
        check(sc.get("procMount") == "Unmasked" and spec.get("hostUsers") is False,
              f"{where}: procMount Unmasked (bwrap's /proc), in a pod of hostUsers: false")
        check(sc.get("allowPrivilegeEscalation") is False and sc.get("capabilities") == {"drop": ["ALL"]},
              f"{where}: no capability, no privilege gained")
    check("WHITTLE_INSECURE" not in env, f"{where}: keys, not --insecure")

print("all checks passed" if not fails else f"{fails} check(s) failed", file=sys.stderr)
sys.exit(1 if fails else 0)

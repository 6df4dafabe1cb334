#!/bin/bash
# The Kubernetes manifests, really started (issue 18): `podman kube play` brings
# up Redis, the coordinator and two nodes from containers/k8s/ with the images
# containers/build-local.sh builds, on a podman network of the test's own; a
# client container on that network reduces the cart fixture (its whittle.json)
# through the coordinator, with the project on the projects PVC, CURVE keys and
# the Redis password from Secrets, the allow-lists from ConfigMaps. Checks the
# exact reduced test (the one tests/e2e/cart.sh expects), that the nodes of both
# node pods joined, that the verdicts went to Redis and a rerun is answered from
# it, that no secret is on a command line; then removes what it created, by name.
#
# podman kube play (4.3) knows Pods, Deployments, PVCs and ConfigMaps. The test
# plays a copy of the manifests, made in $T, that differs from containers/k8s
# only where podman cannot follow Kubernetes:
#   - names get a per-run prefix (pods, volumes, secrets are global to podman);
#   - Services are dropped (podman ignores them); a pod is reached by its name,
#     <deployment>-pod-0, through the network's DNS (aardvark-dns), so the
#     service names in WHITTLE_CONNECT/WHITTLE_CACHE become those pod names;
#   - the Redis StatefulSet becomes a Deployment, its volumeClaimTemplate a PVC;
#   - Namespace and NetworkPolicy are dropped (nothing enforces them here);
#   - images: the kustomization's images: mapping, as kubectl -k applies it;
#   - emptyDirs: podman 4.3 makes an emptyDir a named volume called after it
#     (`workdir`), global and shared by every replica, so two node pods
#     shared one workspace folder and broke each other's setups. An emptyDir
#     on a VOLUME of the image is left out (podman gives each container an
#     anonymous volume there: per pod, fresh, like an emptyDir); any other
#     gets this run's prefix (a Deployment of one replica only).
#   - secret volumes say `optional: false` (Kubernetes' default): podman 4.3
#     crashes on a secret volume without it, and ignores one with true
#     (containers/podman#16636).
# Secrets are podman secrets holding a Kubernetes Secret document (what kube
# play reads for secret volumes), created from files, never argv. Its `data`
# holds the files' text as is, not base64: podman 4.3 decodes the document
# with a YAML decoder that copies a string into []byte without decoding it
# (and knows no stringData), so base64 would reach the files encoded.
#
# Runtime settings podman needs on this machine (crun fails on the host's
# hybrid cgroups, and the default rlimits exceed the sandbox's) go in a
# containers.conf of the test's own, named by CONTAINERS_CONF; /etc is untouched.
#
# Exit 77 (skipped): no podman, no python3-yaml, or the images not built.
source "$(dirname "$0")/lib.sh"
C="$WH_SOURCE_DIR/containers"
skip() { echo "skip: $*" >&2; exit 77; }
command -v podman >/dev/null || skip "podman is not installed (apt-get install podman runc)"
command -v runc >/dev/null || skip "runc is not installed (apt-get install runc)"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"

# procMount: Unmasked, which podman 4.3's kube play ignores, is done as the
# Kubernetes runtimes do it (no masked or read-only paths in the container's
# OCI config) by a precreate hook of the test's own, for the pods the
# patched copy annotates (see the patching below).
mkdir -p "$T/hooks"
cat > "$T/hooks/unmask.py" <<'PY'
#!/usr/bin/python3
# precreate hook: the OCI config on stdin, the config to use on stdout
import json, sys
c = json.load(sys.stdin)
c.setdefault("linux", {})["maskedPaths"] = []
c["linux"]["readonlyPaths"] = []
json.dump(c, sys.stdout)
PY
chmod 755 "$T/hooks/unmask.py"
printf '%s\n' '{"version": "1.0.0", "hook": {"path": "'"$T/hooks/unmask.py"'"},' \
    ' "when": {"annotations": {"^io\\.whittle\\.test\\.procmount$": "^Unmasked$"}},' \
    ' "stages": ["precreate"]}' > "$T/hooks/unmask.json"
cat > "$T/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]
[engine]
runtime = "runc"
hooks_dir = ["$T/hooks"]
CONF
export CONTAINERS_CONF="$T/containers.conf"

# The images the kustomization pins (build-local.sh tags them), else :latest.
image_of() { # name-in-manifests
    local ref
    ref=$(python3 - "$C/k8s/kustomization.yaml" "$1" <<'PY'
import sys, yaml
k = yaml.safe_load(open(sys.argv[1]))
for i in k.get("images", []):
    if i["name"] == sys.argv[2]:
        print(i.get("newName", i["name"]) + ":" + str(i.get("newTag", "latest")))
PY
)
    if podman image exists "$ref"; then echo "$ref"
    elif podman image exists "${ref%:*}:latest"; then echo "${ref%:*}:latest"
    fi
}
COORD_IMG=$(image_of whittle-coordinator)
NODE_IMG=$(image_of whittle-node)
[ -n "$COORD_IMG" ] || skip "image whittle-coordinator is not built (containers/build-local.sh)"
[ -n "$NODE_IMG" ] || skip "image whittle-node is not built (containers/build-local.sh)"
REDIS_REF=$(sed -n 's/^ *image: *\(redis:[^ ]*\).*/\1/p' "$C/k8s/redis.yaml")
podman image exists "$REDIS_REF" || podman image exists "localhost/$REDIS_REF" \
    || skip "image $REDIS_REF is not here (containers/build-local.sh redis builds a stand-in)"

P=whk$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')   # this run's prefix
NET=$P
COORD_POD=$P-coordinator-pod-0
EP=tcp://$COORD_POD:7700
echo "run prefix $P; images $COORD_IMG $NODE_IMG $REDIS_REF" >&2

# --- teardown: only what this run created, by name --------------------------
SECRETS=(whittle-coordinator-key whittle-cache-secret whittle-node-key redis-auth)
PODS=("$P-redis-pod-0" "$COORD_POD" "$P-node-pod-0" "$P-node-pod-1")
# named volumes: the PVCs, and the ones kube play makes for each Secret and
# ConfigMap volume (named after them)
VOLS=("$P-projects" "$P-data-redis-0" "$P-whittle-nodes" "$P-whittle-clients" "$P-coordinator-tmp")
for s in "${SECRETS[@]}"; do VOLS+=("$P-$s"); done
teardown() {
    local anon=() p c v s
    podman rm -f -t 0 "$P-client" >/dev/null 2>&1
    for p in "${PODS[@]}"; do
        podman pod exists "$p" || continue
        # the anonymous volumes (emptyDirs, image VOLUMEs) of its containers
        for c in $(podman pod inspect -f '{{range .Containers}}{{.Name}} {{end}}' "$p" 2>/dev/null); do
            anon+=($(podman container inspect -f '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}' "$c" 2>/dev/null))
        done
        podman pod rm -f -t 5 "$p" >/dev/null 2>&1 || echo "teardown: pod rm $p failed" >&2
    done
    for v in "${anon[@]}" "${VOLS[@]}"; do
        case " ${VOLS[*]} " in *" $v "*) ;; *) [ "${#v}" -eq 64 ] || continue ;; esac  # named ones are ours
        podman volume exists "$v" && { podman volume rm -f "$v" >/dev/null 2>&1 || echo "teardown: volume rm $v failed" >&2; }
    done
    for s in "${SECRETS[@]}"; do
        podman secret inspect "$P-$s" >/dev/null 2>&1 && podman secret rm "$P-$s" >/dev/null
    done
    podman network exists "$NET" && { podman network rm "$NET" >/dev/null || echo "teardown: network rm $NET failed" >&2; }
}
# WHITTLE_KUBE_KEEP=1 leaves everything up for a look (and says how to remove it).
if [ "${WHITTLE_KUBE_KEEP:-0}" = 1 ]; then
    trap 'echo "kept: pods, volumes, secrets and network $P*; remove them with: podman pod rm -f \$(podman pod ps -q --filter name=$P-)" >&2' EXIT
else
    trap 'teardown; cleanup' EXIT
fi

# --- keys, Secrets, ConfigMaps -----------------------------------------------
# CURVE keys with the image's own whittle (no host build needed).
mkdir -p "$T/keys/nodes" "$T/keys/clients" "$T/client" "$T/secrets" "$T/kube"
podman run --rm --network none --user 0 -v "$T/keys:/keys" "$COORD_IMG" sh -c \
    'whittle keygen --out /keys/coordinator && whittle keygen --out /keys/node && whittle keygen --out /keys/me' \
    >/dev/null || { fail "keygen in the coordinator image"; finish; }
cp "$T/keys/node.public" "$T/keys/nodes/"
cp "$T/keys/me.public" "$T/keys/clients/"
head -c 32 /dev/urandom | base64 > "$T/keys/redis.password"
head -c 32 /dev/urandom | base64 > "$T/keys/cache.secret"
# the client's key, for the client container (uid 10001)
cp "$T/keys/me.secret" "$T/keys/coordinator.public" "$T/client/"
chown -R 10001:10001 "$T/client"; chmod 600 "$T/client/me.secret"
# A Kubernetes Secret document per Secret the manifests name (the commands in
# their comments), stored as a podman secret from a file (mode 0600).
secret_doc() { # name key=file...
    local name=$1; shift
    (umask 077; python3 - "$P-$name" "$@" > "$T/secrets/$name.json" <<'PY'
import json, sys
data = {kv.split("=", 1)[0]: open(kv.split("=", 1)[1]).read() for kv in sys.argv[2:]}
print(json.dumps({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": sys.argv[1]},
                  "data": data}))
PY
    )
    podman secret create "$P-$name" "$T/secrets/$name.json" >/dev/null
}
secret_doc whittle-coordinator-key coordinator.secret="$T/keys/coordinator.secret"
secret_doc whittle-cache-secret cache.secret="$T/keys/cache.secret"
secret_doc whittle-node-key node.secret="$T/keys/node.secret" coordinator.public="$T/keys/coordinator.public"
secret_doc redis-auth password="$T/keys/redis.password"
check_eq "secrets created" "$(podman secret ls --format '{{.Name}}' | grep -c "^$P-")" 4

# --- the manifests, as podman can play them ----------------------------------
IMAGE_VOLUMES=$(for i in "$COORD_IMG" "$NODE_IMG"; do
    printf '%s %s\n' "$i" "$(podman image inspect -f '{{json .Config.Volumes}}' "$i")"; done)
python3 - "$C/k8s" "$T/kube" "$P" "$T/keys" "$IMAGE_VOLUMES" <<'PY' || { fail "patching the manifests"; finish; }
import json, os, re, sys, yaml
src, out, P, keys, ivols = sys.argv[1:6]
image_volumes = {}
for line in ivols.splitlines():
    ref, js = line.split(" ", 1)
    image_volumes[ref] = set(json.loads(js) or {})
kust = yaml.safe_load(open(os.path.join(src, "kustomization.yaml")))
images = {i["name"]: "%s:%s" % (i.get("newName", i["name"]), i.get("newTag", "latest"))
          for i in kust.get("images", [])}
docs = []
for f in kust["resources"]:
    docs += [d for d in yaml.safe_load_all(open(os.path.join(src, f))) if d]
workloads = [d for d in docs if d["kind"] in ("Deployment", "StatefulSet")]
# Service name -> the pod that serves it (the workload its selector matches)
svc = {}
for s in (d for d in docs if d["kind"] == "Service"):
    sel = s["spec"]["selector"].items()
    for w in workloads:
        if sel <= w["spec"]["template"]["metadata"]["labels"].items():
            svc[s["metadata"]["name"]] = "%s-%s-pod-0" % (P, w["metadata"]["name"])
assert {"coordinator", "redis"} <= svc.keys(), svc
vols, app, dropped = [], [], []
for d in docs:
    k = d["kind"]
    if k == "PersistentVolumeClaim":
        d["metadata"]["name"] = P + "-" + d["metadata"]["name"]
        vols.append(d)
    elif k in ("Deployment", "StatefulSet"):
        name = d["metadata"]["name"]
        spec = d["spec"]; pod = spec["template"]["spec"]
        if k == "StatefulSet":
            for t in spec.pop("volumeClaimTemplates", []):
                claim = "%s-%s-%s-0" % (P, t["metadata"]["name"], name)
                vols.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                             "metadata": {"name": claim}, "spec": t["spec"]})
                pod.setdefault("volumes", []).append(
                    {"name": t["metadata"]["name"], "persistentVolumeClaim": {"claimName": claim}})
            spec.pop("serviceName", None)
            d["kind"] = "Deployment"
        # hostUsers: false is --userns=auto in podman 4.3, which needs
        # subordinate ids of the user "containers" in /etc/subuid (not here;
        # /etc stays untouched): the pods run in the host's user namespace.
        pod.pop("hostUsers", None)
        # procMount: Unmasked -> the annotation the precreate hook acts on
        # (a pod's annotations reach all its containers: all must ask). Podman
        # 4.3 gives a Deployment's pods the Deployment's own annotations, not
        # its template's.
        unmasked = [c.get("securityContext", {}).get("procMount") == "Unmasked"
                    for c in pod["containers"]]
        if any(unmasked):
            assert all(unmasked), "%s: procMount Unmasked on some containers only" % name
            d["metadata"].setdefault("annotations", {})["io.whittle.test.procmount"] = "Unmasked"
        d["metadata"]["name"] = P + "-" + name
        for c in pod["containers"]:
            c["image"] = images.get(c["image"], c["image"])
        # emptyDirs (see the top of this script)
        for v in list(pod.get("volumes", [])):
            if "emptyDir" not in v:
                continue
            at = [(c, m) for c in pod["containers"] for m in c.get("volumeMounts", [])
                  if m["name"] == v["name"]]
            if at and all(m["mountPath"] in image_volumes.get(c["image"], ()) for c, m in at):
                pod["volumes"].remove(v)
                for c, m in at:
                    c["volumeMounts"].remove(m)
            else:
                assert spec.get("replicas", 1) == 1, "emptyDir %s of %s: replicas share it" % (v["name"], name)
                for c, m in at:
                    m["name"] = "%s-%s-%s" % (P, name, v["name"])
                v["name"] = "%s-%s-%s" % (P, name, v["name"])
        for c in pod["containers"]:
            for e in c.get("env", []):
                # the client key "me" names its projects on the projects PVC
                if e["name"] == "WHITTLE_GRANTS":
                    e["value"] = "me=/projects"
                if "value" in e:
                    e["value"] = re.sub(r"(?<=//)([a-z0-9-]+)(?=:)",
                                        lambda m: svc.get(m.group(1), m.group(1)), e["value"])
                ref = e.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    ref["name"] = P + "-" + ref["name"]
        for v in pod.get("volumes", []):
            if "secret" in v:
                v["secret"]["secretName"] = P + "-" + v["secret"]["secretName"]
                v["secret"].setdefault("optional", False)
            if "configMap" in v:
                v["configMap"]["name"] = P + "-" + v["configMap"]["name"]
            if "persistentVolumeClaim" in v and not v["persistentVolumeClaim"]["claimName"].startswith(P):
                v["persistentVolumeClaim"]["claimName"] = P + "-" + v["persistentVolumeClaim"]["claimName"]
        app.append(d)
    else:
        dropped.append("%s/%s" % (k, d["metadata"]["name"]))
# The allow-lists, as `kubectl create configmap --from-file=keys/nodes/` makes them.
for cm, folder in (("whittle-nodes", "nodes"), ("whittle-clients", "clients")):
    path = os.path.join(keys, folder)
    app.insert(0, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": P + "-" + cm},
                   "data": {f: open(os.path.join(path, f)).read() for f in sorted(os.listdir(path))}})
yaml.safe_dump_all(vols, open(os.path.join(out, "volumes.yaml"), "w"), sort_keys=False)
yaml.safe_dump_all(app, open(os.path.join(out, "app.yaml"), "w"), sort_keys=False)
print("services -> pods: %s; not played: %s" % (
    ", ".join("%s=%s" % kv for kv in sorted(svc.items())), ", ".join(dropped)), file=sys.stderr)
PY

# --- network, volumes, the project on the projects PVC ------------------------
podman network create "$NET" >/dev/null || { fail "network create"; finish; }
podman kube play --network "$NET" "$T/kube/volumes.yaml" >/dev/null || { fail "kube play volumes.yaml"; finish; }
PROJ=$(podman volume inspect -f '{{.Mountpoint}}' "$P-projects") || { fail "projects volume"; finish; }
(cd "$FIX" && tar --exclude='build*' -cf - cart) | tar -C "$PROJ" -xf -
mkdir -p "$PROJ/whittle-runs"
chown -R 10001:10001 "$PROJ"   # fsGroup: 10001 (kube play does not apply it)

# --- bring it up -------------------------------------------------------------
t0=$(date +%s.%N)
podman kube play --network "$NET" "$T/kube/app.yaml" > "$T/play.out" 2>&1 \
    || { cat "$T/play.out" >&2; fail "kube play app.yaml"; finish; }
t_play=$(date +%s.%N)
for p in "${PODS[@]}"; do
    check_eq "pod $p running" "$(podman pod inspect -f '{{.State}}' "$p" 2>&1)" Running
done

# The CLI in a container of its own on the network, the projects PVC mounted at
# /projects (read-only), its client key from a folder of its own.
client() {
    podman run --rm --name "$P-client" --network "$NET" \
        -v "$P-projects:/projects:ro" -v "$T/client:/etc/whittle/client:ro" \
        -e WHITTLE_SECRET_KEY=/etc/whittle/client/me.secret \
        -e WHITTLE_SERVER_KEY=/etc/whittle/client/coordinator.public \
        "$COORD_IMG" "$@"
}
slots_joined() { client whittle status --cluster "$EP" 2>/dev/null | sed -n 's/^nodes: [0-9]*  slots: \([0-9]*\).*/\1/p'; }
want_slots=$(( 2 * $(sed -n 's/.*WHITTLE_SLOTS, value: "\([0-9]*\)".*/\1/p' "$C/k8s/node.yaml") ))
joined=
while [ "$(echo "$(date +%s.%N) - $t_play < 180" | bc)" = 1 ]; do
    joined=$(slots_joined)
    [ "$joined" = "$want_slots" ] && break
    sleep 0.5
done
t_up=$(date +%s.%N)
if [ "$joined" != "$want_slots" ]; then
    fail "the nodes did not join within 180 s (slots: '${joined}', want $want_slots)"
    for p in "${PODS[@]}"; do echo "--- $p" >&2; podman pod logs --tail 20 "$p" >&2 2>&1; done
    finish
fi
pass "2 node pods joined: $want_slots slots"
printf 'time: kube play %.1f s, up to %s slots joined %.1f s\n' "$(echo "$t_play - $t0" | bc)" \
    "$want_slots" "$(echo "$t_up - $t0" | bc)" >&2

# --- the reduction -------------------------------------------------------------
want_body='static void test_added_item_is_in_cart(void **state)
{
    struct cart *cart = cart_new();
    cart_add(cart, "apple");
    for (size_t i = 0; i < cart_count(cart); i++) {
        assert_string_equal("apple", cart_item(cart, i)->name);
    }
}'
reduce() { # out [project]
    timeout 600 podman run --rm --name "$P-client" --network "$NET" \
        -v "$P-projects:/projects:ro" -v "$T/client:/etc/whittle/client:ro" \
        -e WHITTLE_SECRET_KEY=/etc/whittle/client/me.secret \
        -e WHITTLE_SERVER_KEY=/etc/whittle/client/coordinator.public \
        "$COORD_IMG" whittle reduce --cluster "$EP" --config "/projects/${2:-cart}/whittle.json" --out "$1"
}
t1=$(date +%s.%N)
reduce cart > "$T/reduce.out" 2>&1; rc=$?
t2=$(date +%s.%N)
# 0, or 5 when one node pod judged every candidate and verified the answer
# itself (the other one not warm in time): no second opinion, and the
# client container (the coordinator's image: no compiler) cannot check the
# answer itself, so it is reported not verified, as documented.
case "$rc" in
    0|5) pass "reduce exit $rc" ;;
    *) fail "reduce exit: got '$rc', want 0 or 5" ;;
esac
if [ "$rc" != 0 ] && [ "$rc" != 5 ]; then   # what the nodes saw
    cat "$T/reduce.out" >&2
    for n in "$P-node-pod-0-node" "$P-node-pod-1-node"; do
        echo "--- $n" >&2; podman logs --tail 20 "$n" >&2 2>&1
        podman exec "$n" sh -c 'tail -n 30 /var/lib/whittle/ws/*/*.log' >&2 2>&1
    done
fi
R=$(run_dir "$PROJ/whittle-runs/cart" 2>/dev/null)
if [ -z "$R" ] || [ ! -s "$R/summary.json" ]; then
    cat "$T/reduce.out" >&2; fail "no run folder under whittle-runs/cart on the projects PVC"; finish
fi
check_eq "statements" "$(json "$R/summary.json" '"\(.statements_before) -> \(.statements_after)"')" "7 -> 4"
check_eq "reduced test" "$(awk '/^static void test_added_item_is_in_cart/,/^}/' "$R/reduced.c")" "$want_body"
if [ "$rc" = 5 ]; then
    check_eq "not verified: said in the run's summary" "$(json "$R/summary.json" .verified)" false
    grep -q "not verified: one node judged every candidate" "$T/reduce.out" \
        && pass "not verified: the client says so" || fail "exit 5 without the client's line"
else
    check_eq "verified" "$(json "$R/summary.json" .verified)" true
fi
check_eq "run folder owner" "$(stat -c %u "$R")" 10001
# Which pods built: slots are named KEY/N (one key for the node pool), so
# count each pod's workspaces of the job (slot-N, not its slot-N.scratch).
slots_used=$(tail -n +2 "$R/judged.csv" | cut -d, -f3 | sort -u | tr '\n' ' ')
per_pod=$(for n in 0 1; do printf '%s-node-pod-%s: %s  ' "$P" "$n" \
    "$(podman exec "$P-node-pod-$n-node" sh -c 'ls -d /var/lib/whittle/ws/*/slot-*/ 2>/dev/null | grep -vc "[.]scratch/$"')"; done)
echo "slots that judged: $slots_used; workspaces: $per_pod; $(json "$R/summary.json" '"evaluated \(.evaluated), cached \(.cached)"')" >&2
printf 'time: reduction %.1f s (client wall), the run says %s ms\n' "$(echo "$t2 - $t1" | bc)" \
    "$(json "$R/summary.json" .wall_ms)" >&2

# The verdicts are in Redis (MACed values), and a rerun is answered from there.
keys=$(podman exec "$P-redis-pod-0-redis" sh -c 'REDISCLI_AUTH="$(cat /etc/redis-auth/password)" redis-cli --no-auth-warning dbsize')
[ "${keys:-0}" -gt 0 ] 2>/dev/null && pass "Redis holds $keys keys" || fail "Redis holds '${keys}' keys"
t3=$(date +%s.%N)
reduce cart-again > "$T/reduce2.out" 2>&1; rc=$?
t4=$(date +%s.%N)
case "$rc" in
    0|5) pass "rerun exit $rc" ;;
    *) fail "rerun exit: got '$rc', want 0 or 5" ;;
esac
R2=$(run_dir "$PROJ/whittle-runs/cart-again" 2>/dev/null)
check_eq "rerun reduced test" "$(awk '/^static void test_added_item_is_in_cart/,/^}/' "$R2/reduced.c" 2>/dev/null)" "$want_body"
check_eq "rerun evaluated" "$(json "$R2/summary.json" .evaluated 2>/dev/null)" 0
printf 'time: rerun from Redis %.1f s (client wall)\n' "$(echo "$t4 - $t3" | bc)" >&2

# --- a hostile job (issue 34) --------------------------------------------------
# Another tenant's project, whose setup and --run read the node's secret key
# (where node.yaml mounts it, also through /proc/N/root) into their output and
# into a log in their own workspace (which a later job of that tenant could
# send anywhere), and write into every other job's workspaces on the node.
# Each node pod confines jobs (node.yaml: the bwrap sandbox): the key is in no
# file of the nodes' workdirs or /tmp, no run folder and no client output; the
# cart job's workspaces are unchanged, byte for byte; and the script did run
# (its log is in its workspace).
for n in 0 1; do
    conf=$(podman logs "$P-node-pod-$n-node" 2>&1 | grep "^whittle-node: \(job commands\|warning\)")
    check_eq "node-pod-$n: confinement" "$conf" \
        "whittle-node: job commands run as this node's user in a bwrap sandbox (loopback-only network)"
done
KEYDIR=$(python3 - "$C/k8s/node.yaml" <<'PY'
import os, sys, yaml
d = next(d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "Deployment")
env = {e["name"]: e.get("value") for e in d["spec"]["template"]["spec"]["containers"][0]["env"]}
print(os.path.dirname(env["WHITTLE_SECRET_KEY"]))
PY
)
node_secret=$(sed -n 's/^ *secret-key = "\(.*\)"$/\1/p' "$T/keys/node.secret")
[ -n "$node_secret" ] || { fail "no secret-key line in the node's key file"; finish; }
(cd "$FIX" && tar --exclude='build*' -cf - cart) | tar -C "$T" -xf - && mv "$T/cart" "$PROJ/evil"
cat > "$PROJ/evil/evil.sh" <<EVIL
#!/bin/sh
# A hostile tenant's step: the node's key into this output, marks in the
# workspaces of every other job on the node.
exec >> evil.log 2>&1     # in its own workspace
echo "evil \$1: ran as uid \$(id -u) in \$(pwd)"
for f in $KEYDIR/* $KEYDIR/..data/* /proc/[0-9]*/root$KEYDIR/*; do
    [ -f "\$f" ] && echo "evil \$1: read \$f:" && cat "\$f"
done 2>/dev/null
own=\$(dirname "\$(pwd -P)")   # this job's own key folder: left alone
for d in /var/lib/whittle/ws/*/*/ /var/lib/whittle/ws/*/*/tests/; do
    case \$d in "\$own"/*) continue ;; esac
    echo evil > "\$d/PLANTED" 2>/dev/null && echo "evil \$1: wrote into \$d"
    [ -f "\$d/test_cart.c" ] && echo '#error planted' >> "\$d/test_cart.c" 2>/dev/null \
        && echo "evil \$1: changed \$d/test_cart.c"
done
exit 0
EVIL
cat > "$PROJ/evil/whittle.json" <<'JSON'
{
  "project": ".",
  "file": "tests/test_cart.c",
  "test": "test_added_item_is_in_cart",
  "setup": "sh ./evil.sh setup; cmake -S . -B build -G Ninja >/dev/null && cmake --build build",
  "build": "cmake --build build",
  "run": "sh ./evil.sh run; build/test_cart"
}
JSON
chown -R 10001:10001 "$PROJ/evil"
# Every file of the workspaces there are now (the cart job's), per node pod.
ws_sums() { # pod-index
    podman exec "$P-node-pod-$1-node" sh -c \
        'cd /var/lib/whittle/ws && find . -type f -print0 | sort -z | xargs -0 md5sum' 2>&1
}
for n in 0 1; do ws_sums $n > "$T/ws-before-$n"; done
check_eq "cart workspaces hold files" "$(cat "$T/ws-before-0" "$T/ws-before-1" | grep -c 'test_cart[.]c$' | sed 's/^[1-9][0-9]*$/some/')" some
reduce evil evil > "$T/evil.out" 2>&1; rc=$?
echo "hostile job: exit $rc; $(grep -c . "$T/evil.out") lines of client output" >&2
ran=$(for n in 0 1; do podman exec "$P-node-pod-$n-node" sh -c \
    'grep -rl "^evil run: ran as uid" /var/lib/whittle/ws 2>/dev/null'; done | grep -c .)
[ "$ran" -gt 0 ] && pass "the hostile --run ran ($ran logs of it in its workspaces)" \
    || { cat "$T/evil.out" >&2; fail "the hostile job left no log in its workspaces"; }
leaks=$( { grep -rlF "$node_secret" "$PROJ/whittle-runs" "$T/evil.out"
           for n in 0 1; do printf '%s\n' "$node_secret" | podman exec -i "$P-node-pod-$n-node" \
               sh -c 'grep -rlF -f /dev/stdin /var/lib/whittle /tmp 2>/dev/null' | sed "s/^/node-pod-$n:/"; done; } )
if [ -n "$leaks" ]; then
    fail "the node's secret key is in $(echo "$leaks" | grep -c .) files (the hostile job read it): $(echo $leaks | cut -c1-300)"
else
    pass "the node's secret key is in no workdir, /tmp, run folder or client output"
fi
for n in 0 1; do
    ws_sums $n > "$T/ws-after-$n"
    # the workspaces there were before: the hostile job's own key folder is new
    keys=$(sed -n 's:^[0-9a-f]*  [.]/\([0-9a-f]*\)/.*:\1:p' "$T/ws-before-$n" | sort -u | tr '\n' '|')
    grep -E "  [.]/(${keys%|})/" "$T/ws-after-$n" > "$T/ws-after-old-$n"
    grep -E "  [.]/(${keys%|})/" "$T/ws-before-$n" > "$T/ws-before-old-$n"
    if diff "$T/ws-before-old-$n" "$T/ws-after-old-$n" > "$T/ws-diff-$n"; then
        pass "node-pod-$n: the other job's workspaces are unchanged ($(grep -c . "$T/ws-before-old-$n") files)"
    else
        fail "node-pod-$n: the hostile job changed another job's workspaces: $(grep -c '^[<>]' "$T/ws-diff-$n") lines differ"
        head -6 "$T/ws-diff-$n" >&2
    fi
done

# No secret on any command line of any container of the run.
pw=$(cat "$T/keys/redis.password")
for p in "${PODS[@]}"; do
    for c in $(podman pod inspect -f '{{range .Containers}}{{.Name}} {{end}}' "$p"); do
        case $c in *-infra) continue ;; esac
        if podman exec "$c" sh -c 'cat /proc/[0-9]*/cmdline' 2>/dev/null | tr '\0' ' ' | grep -qF "$pw"; then
            fail "the Redis password is on a command line in $c"
        fi
    done
done
pass "no Redis password on a command line"

# --- tear down, and nothing of this run is left --------------------------------
teardown
check_eq "pods left" "$(podman pod ps --format '{{.Name}}' | grep -c "^$P-")" 0
check_eq "volumes left" "$(podman volume ls --format '{{.Name}}' | grep -c "^$P-")" 0
check_eq "secrets left" "$(podman secret ls --format '{{.Name}}' | grep -c "^$P-")" 0
check_eq "network left" "$(podman network exists "$NET" && echo yes || echo no)" no
finish

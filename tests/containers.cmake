# The container images without building one (issue 10): package lists against
# the binaries' libraries and CMake's dependencies, the entrypoints' command
# lines against the daemons' --help, compose/k8s against the images.
wh_add_e2e(container_packages container_entrypoints SKIP77)
wh_add_script(e2e_container_manifests e2e/container_manifests.py RUN python3 NOBIN TIMEOUT 60)
# The k8s manifests really started (issue 18): podman kube play brings up Redis,
# the coordinator and two nodes from containers/k8s/ with the images
# build-local.sh built, reduces the cart fixture through them and tears down.
# Minutes, root, podman: never beside another test, out of the fast path
# (-LE slow); skipped (77) without podman or the images.
wh_add_e2e(container_kube SKIP77 SERIAL TIMEOUT 1200 LABELS e2e container slow)

# The container images without building one (issue 10): package lists against
# the binaries' libraries and CMake's dependencies, the entrypoints' command
# lines against the daemons' --help, compose/k8s against the images.
wh_add_e2e(container_packages container_entrypoints SKIP77 TIMEOUT 120)
wh_add_script(e2e_container_manifests e2e/container_manifests.py RUN python3 NOBIN TIMEOUT 60)

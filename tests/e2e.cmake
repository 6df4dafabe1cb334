# End-to-end tests: the whittle binary on fixture projects.
wh_add_e2e(cart config headers errors cluster_tcp cluster_auth metrics flaky fault twin gtest ctest warm group suite mutate farm_reduce precheck keep_fault liar liar_negative liar_claims cache_audit claims_infra)

# Compile flags from the warm workspace, parse errors, loop macros (issue 8).
wh_add_e2e(ringq_flags ringq_foreach)

# Least privilege on nodes, the coordinator's run folders, busy budgets
# (issue 10). node_runas needs root (77: skipped).
wh_add_e2e(node_runas submit_guard SKIP77)
# One tenant cannot touch another: a uid per workspace key (issue 18). Needs root.
wh_add_e2e(tenant SKIP77)
# A job's environment is allow-listed: none of the node's secrets (issue 34).
wh_add_e2e(job_env)
# A client key names only the folders the coordinator granted it (issue 34).
wh_add_e2e(grant)
# A node copies a project as the job's user, never as root (issue 34). Needs root.
wh_add_e2e(tenant_copy SKIP77)
# Each client key's jobs under uids of their own, by default (issue 34). Needs root.
wh_add_e2e(tenant_uid SKIP77)

# No shared filesystem: git snapshots into mount namespaces that hide the project.
wh_add_e2e(snapshot SKIP77 TIMEOUT 600)
# Not git: the project travels as a tar, to a coordinator that grants the key nothing (issue 34).
wh_add_e2e(snapshot_tar SKIP77 TIMEOUT 900)
# Every slot its own TMPDIR and HOME, emptied before each run (issue 18).
wh_add_e2e(slot_tmp)
# bear breaking on its own under load is not the setup failing.
wh_add_e2e(bear_broken)
# Say who verified; reduce --cluster --verify-local, the client's own second opinion (issue 18).
wh_add_e2e(verify_local)
# No answer rests on the word of the node that produced it: the fingerprint
# rule, an unverified answer (exit 5), a lone liar named (issue 34).
wh_add_e2e(lone_liar SKIP77)
wh_add_e2e(ctest_deaths)
# A front-end error in a header the test includes: named there, said once (issue 33).
wh_add_e2e(precheck_header)
# A project assertion helper: its printed call site and values in the fingerprint (issue 33).
wh_add_e2e(helper_assert)
# A candidate that makes another function fail is no Preserved (issue 33).
wh_add_e2e(shared_state)
# libcbor: cmocka through a project header, an assert() abort is an assertion (issue 33).
wh_add_e2e(abort_assert)
# --budget builds=N|time=D (issue 35): a partial answer, exit 6.
wh_add_e2e(budget)
# A night of failures: grouped before reducing, one reduction per root cause (issue 35).
wh_add_e2e(night)
# The same night through a loopback cluster: grouped first, the report on the client (issue 35).
wh_add_e2e(cluster_night SKIP77)
# --batch-budget and the order of a night's groups (issue 35).
wh_add_e2e(batch_budget night_priority)
# Weak cases of issue 34: replays refused, honest errors.
wh_add_e2e(wire_limit role_refused node_sigstop)
# 1,100 held connections need an open-files limit of 1300 (77: skipped).
wh_add_e2e(metrics_flood SKIP77)
# Honest benchmarks (issue 36): bench/scaling.sh's audit of its predictions
# fails on a wrong one; bench/lib.sh refuses a fixture under whittle's build.
wh_add_e2e(bench_audit LABELS e2e bench)

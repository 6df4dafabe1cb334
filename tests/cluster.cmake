# Cluster tests (issue 3): multi-host on network namespaces, Redis outage;
# heartbeats under load (issue 34, stress-ng).
# Both are slow and use fixed ports/namespaces: run them one at a time.
# netns.sh exits 77 (skipped) when it may not create network namespaces.
foreach(t netns redis_stop redis_auth heartbeat_load)
  wh_add_script(cluster_${t} cluster/${t}.sh SERIAL SKIP77 TIMEOUT 600 LABELS cluster slow)
endforeach()

#!/usr/bin/env bash
# deploy/nginx.conf for a test on this machine: the upstream pointed at two
# local instances, listening on 127.0.0.1 only, its pid and access log in
# the test's directory, no edge rate limit.
# Usage: tests/proxy/nginx_conf.sh PORT_A PORT_B PROXY_PORT WORK_DIR > nginx.conf
set -euo pipefail
cd "$(dirname "$0")/../.."
port_a=$1 port_b=$2 port_proxy=$3 work=$4
sed -e "s|server kaarttafel-1:8080[^;]*;|server 127.0.0.1:$port_a max_fails=1 fail_timeout=5s;|" \
    -e "s|server kaarttafel-2:8080[^;]*;|server 127.0.0.1:$port_b max_fails=1 fail_timeout=5s;|" \
    -e "s|listen 8080;|listen 127.0.0.1:$port_proxy;|" \
    -e "s|pid [^;]*;|pid $work/nginx.pid;|" \
    -e "s|access_log /dev/stdout|access_log $work/nginx-access.log|" \
    -e "s|limit_req zone=kaarttafel_per_client[^;]*;||" \
    deploy/nginx.conf

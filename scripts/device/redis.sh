# Sourced on the GPU machine (which has no Redis) to start a carried redis-server on loopback
# for remote-cache figures: `source scripts/device/redis.sh` exports TUNER_BENCH_REDIS_URL.
# Here, once: mkdir .redis && cp -L /usr/bin/redis-server and its rarer libraries into it
# (liblzf, libjemalloc, libatomic), then name .redis in the device call's carry list.
case "${1:-}" in -h|--help) sed -n '1,/^[^#]/{/^#!/d;/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; return 0 2>/dev/null || exit 0 ;; esac
if [ -x .redis/redis-server ]; then
    LD_LIBRARY_PATH=$PWD/.redis${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        .redis/redis-server --port 6399 --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
        --logfile /tmp/redis-6399.log && sleep 0.5 && export TUNER_BENCH_REDIS_URL=redis://127.0.0.1:6399/0 \
        && echo "redis on $TUNER_BENCH_REDIS_URL"
else
    echo "no carried .redis/redis-server: remote-cache figures will be skipped"
fi

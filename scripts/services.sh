#!/usr/bin/env bash
# Starts PostgreSQL and RabbitMQ when they are installed but down, and waits until they answer.
# Tests that need a service skip with a message when it is absent (and fail under CI=true).
set -u

wait_for() { # name, command
  for _ in $(seq 1 60); do
    if eval "$2" >/dev/null 2>&1; then echo "services: $1 is up"; return 0; fi
    sleep 1
  done
  echo "services: $1 did not answer in 60 s" >&2
  return 1
}

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q; }
if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
  pg_up >/dev/null 2>&1 || pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
  wait_for postgresql pg_up || true
else
  echo "services: PostgreSQL is not installed here; its tests will skip" >&2
fi

rabbit_up() { (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null && rabbitmq-diagnostics -q check_port_connectivity; }
if command -v rabbitmq-server >/dev/null 2>&1; then
  rabbit_up >/dev/null 2>&1 || rabbitmq-server -detached || true
  wait_for rabbitmq rabbit_up || true
else
  echo "services: RabbitMQ is not installed here; its tests will skip" >&2
fi
exit 0

<?php
// A Prometheus endpoint: this PHP server's rediskit metrics (every worker of
// its PHP-FPM pool) in the Prometheus text format. Serve it from the pool you
// want to watch, and let only your Prometheus servers reach it: the metrics
// name your locks, queues and Redis servers.
//
//   scrape_configs:
//     - job_name: rediskit
//       metrics_path: /metrics.php
//       static_configs: [{ targets: ['web-1:80', 'web-2:80'] }]
//
// RK_METRICS_ALLOW: the client addresses allowed, comma-separated (default:
// this machine only).
$allowed = array_map('trim', explode(',', getenv('RK_METRICS_ALLOW') ?: '127.0.0.1,::1'));
if (!in_array($_SERVER['REMOTE_ADDR'] ?? '', $allowed, true)) {
    http_response_code(403);
    header('Content-Type: text/plain; charset=utf-8');
    echo "forbidden\n";
    exit;
}
header('Content-Type: ' . RedisKit\Metrics::contentType());
header('Cache-Control: no-store');
echo RedisKit\Metrics::openMetrics();

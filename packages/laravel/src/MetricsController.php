<?php

namespace RedisKit\Laravel;

use Illuminate\Contracts\Config\Repository as Config;
use Illuminate\Http\Request;
use Illuminate\Http\Response;
use RedisKit\Metrics;

/**
 * The Prometheus endpoint: this server's rediskit metrics (every worker of
 * its PHP-FPM pool) in the Prometheus text format. Registered as a GET route
 * at config rediskit.metrics.route; answers 403 unless the client's address
 * (Request::ip(), so your TrustProxies settings apply) is in
 * rediskit.metrics.allow, or it sends `Authorization: Bearer <token>` with
 * rediskit.metrics.token. No session, no cookies: a scraper has neither.
 */
final class MetricsController
{
    public function __construct(private Config $config)
    {
    }

    public function __invoke(Request $request): Response
    {
        $cfg = (array) $this->config->get('rediskit.metrics', []);
        $token = (string) ($cfg['token'] ?? '');
        $bearer = $request->bearerToken();
        $allowed = in_array($request->ip(), (array) ($cfg['allow'] ?? []), true)
            || ($token !== '' && is_string($bearer) && hash_equals($token, $bearer));
        if (!$allowed) {
            return new Response("forbidden\n", 403, ['Content-Type' => 'text/plain; charset=utf-8', 'Cache-Control' => 'no-store']);
        }

        return new Response(Metrics::openMetrics(), 200, ['Content-Type' => Metrics::contentType(), 'Cache-Control' => 'no-store']);
    }
}

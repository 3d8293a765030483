<?php

namespace RedisKit\Symfony\Controller;

use RedisKit\Metrics;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * The Prometheus endpoint (service `rediskit.metrics_controller`, with
 * `rediskit.metrics.enabled`): this server's rediskit metrics, every worker
 * of its PHP-FPM pool, in the Prometheus text format. 403 unless the
 * client's address (Request::getClientIp(), so framework.trusted_proxies
 * applies) is in `rediskit.metrics.allow`, or it sends
 * `Authorization: Bearer <rediskit.metrics.token>`. Route it yourself:
 *
 *     rediskit_metrics:
 *         path: /rediskit/metrics
 *         controller: rediskit.metrics_controller
 *         methods: [GET]
 */
final class MetricsController
{
    /** @param list<string> $allow */
    public function __construct(private array $allow, private ?string $token)
    {
    }

    public function __invoke(Request $request): Response
    {
        $bearer = null;
        if (preg_match('/^Bearer\s+(\S+)$/i', (string) $request->headers->get('Authorization', ''), $m)) {
            $bearer = $m[1];
        }
        $allowed = in_array($request->getClientIp(), $this->allow, true)
            || ($this->token !== null && $this->token !== '' && $bearer !== null && hash_equals($this->token, $bearer));
        if (!$allowed) {
            return new Response("forbidden\n", 403, ['Content-Type' => 'text/plain; charset=utf-8', 'Cache-Control' => 'no-store']);
        }

        return new Response(Metrics::openMetrics(), 200, ['Content-Type' => Metrics::contentType(), 'Cache-Control' => 'no-store']);
    }
}

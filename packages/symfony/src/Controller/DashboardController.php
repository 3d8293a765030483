<?php

namespace RedisKit\Symfony\Controller;

use Psr\Log\LoggerInterface;
use RedisKit\Dashboard\Dashboard;
use RedisKit\Dashboard\Request as DashboardRequest;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\Security\Core\Authorization\AuthorizationCheckerInterface;

/**
 * The rediskit dashboard (rediskit/dashboard; service
 * `rediskit.dashboard_controller`, with `rediskit.dashboard.enabled`): for
 * whom the security attribute `rediskit.dashboard.attribute` (default
 * ROLE_ADMIN) is granted, through Symfony's authorization checker. Without
 * SecurityBundle (no checker) nobody is. Actions are logged through the
 * `logger` service. Route it yourself, for GET and POST:
 *
 *     rediskit_dashboard:
 *         path: /rediskit
 *         controller: rediskit.dashboard_controller
 *         methods: [GET, POST]
 */
final class DashboardController
{
    private Dashboard $dashboard;

    public function __construct(
        string|array|null $connection,
        ?string $prefix,
        string $attribute,
        ?AuthorizationCheckerInterface $checker,
        ?LoggerInterface $logger,
        string $secret,
    ) {
        $this->dashboard = new Dashboard([
            'authorize' => static fn (): bool => $checker !== null && $checker->isGranted($attribute),
            'connection' => $connection,
            'prefix' => $prefix,
            // the CSRF cookie's HMAC key, from kernel.secret
            'secret' => hash_hmac('sha256', 'rediskit dashboard', $secret),
            'logger' => $logger,
        ]);
    }

    public function __invoke(Request $request): Response
    {
        return $this->dashboard->handle(DashboardRequest::fromHttpFoundation($request))->toHttpFoundation();
    }
}

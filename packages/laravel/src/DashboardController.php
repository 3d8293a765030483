<?php

namespace RedisKit\Laravel;

use Illuminate\Contracts\Auth\Access\Gate;
use Illuminate\Contracts\Config\Repository as Config;
use Illuminate\Contracts\Foundation\Application;
use Illuminate\Http\Request;
use Illuminate\Http\Response;
use Psr\Log\LoggerInterface;
use RedisKit\Dashboard\Dashboard;
use RedisKit\Dashboard\Request as DashboardRequest;

/**
 * The rediskit dashboard (packages/dashboard) at config
 * rediskit.dashboard.route, in the `web` middleware group: Laravel's session,
 * auth and CSRF token. Who may see it is the `viewRedisKit` gate; until the
 * application defines it, only the `local` environment may (as Horizon's
 * `viewHorizon`). Actions are logged through Laravel's log.
 */
final class DashboardController
{
    public function __construct(private Application $app, private Config $config, private Gate $gate)
    {
    }

    public function __invoke(Request $request): Response
    {
        $allowed = fn (): bool => $this->gate->has('viewRedisKit')
            ? $this->gate->allows('viewRedisKit')
            : $this->app->environment('local');
        // cookies from the header: EncryptCookies drops those it did not
        // encrypt itself, the dashboard's CSRF cookie among them
        $cookies = [];
        foreach (explode(';', (string) $request->headers->get('cookie', '')) as $pair) {
            if (str_contains($pair, '=')) {
                [$k, $v] = explode('=', trim($pair), 2);
                $cookies[$k] = urldecode($v);
            }
        }
        $token = $request->hasSession() ? (string) $request->session()->token() : '';
        $dashboard = new Dashboard([
            'authorize' => $allowed,
            'connection' => $this->config->get('rediskit.connection'),
            'prefix' => (string) $this->config->get('rediskit.prefix', ''),
            'logger' => $this->app->make(LoggerInterface::class),
            'title' => (string) $this->config->get('app.name', 'rediskit') . ' · rediskit',
        ] + ($token !== '' ? ['csrf' => ['field' => '_token', 'token' => $token]] : []));
        return $dashboard->handle(DashboardRequest::fromHttpFoundation($request, $cookies))
            ->toHttpFoundation(Response::class);
    }
}

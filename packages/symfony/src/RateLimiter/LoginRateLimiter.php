<?php

namespace RedisKit\Symfony\RateLimiter;

use Symfony\Component\HttpFoundation\Request;

/**
 * Symfony's DefaultLoginRateLimiter on rediskit, for `login_throttling`:
 * a global limiter per client IP and a local one per username and IP,
 * both checked and consumed in one atomic script. With $secret the keys
 * are HMACs of the IP and username (as Symfony 6.4+ does), so Redis holds
 * no personal data.
 *
 *     # security.yaml
 *     firewalls: { main: { login_throttling: { limiter: app.login_rate_limiter } } }
 */
final class LoginRateLimiter extends RedisKitRequestRateLimiter
{
    /** Symfony's request attribute with the username of the login attempt. */
    private const LAST_USERNAME = '_security.last_username';

    public function __construct(
        private RedisKitLimiterFactory $globalFactory,
        private RedisKitLimiterFactory $localFactory,
        #[\SensitiveParameter] private ?string $secret = null,
    ) {
    }

    protected function getLimiters(Request $request): array
    {
        $username = (string) $request->attributes->get(self::LAST_USERNAME, '');
        $username = preg_match('//u', $username) ? mb_strtolower($username, 'UTF-8') : strtolower($username);
        $ip = (string) $request->getClientIp();

        return [
            $this->globalFactory->create($this->hash($ip)),
            $this->localFactory->create($this->hash($username . '-' . $ip)),
        ];
    }

    private function hash(string $data): string
    {
        return $this->secret === null ? $data : strtr(substr(base64_encode(hash_hmac('sha256', $data, $this->secret, true)), 0, 8), '/+', '._');
    }
}

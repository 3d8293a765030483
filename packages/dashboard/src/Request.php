<?php

declare(strict_types=1);

namespace RedisKit\Dashboard;

/**
 * What the dashboard reads of an HTTP request. Build it from PHP's globals
 * (fromGlobals()) or from a framework's request (the Laravel and Symfony
 * mounts do).
 */
final class Request
{
    /**
     * @param array<string, mixed> $query   the query string's parameters
     * @param array<string, mixed> $post    the form fields of a POST
     * @param array<string, string> $cookies
     * @param array<string, string> $headers names in lower case
     */
    public function __construct(
        public readonly string $method,
        public readonly array $query = [],
        public readonly array $post = [],
        public readonly array $cookies = [],
        public readonly array $headers = [],
        public readonly bool $secure = false,
        public readonly string $clientIp = '',
    ) {
    }

    public static function fromGlobals(): self
    {
        $headers = [];
        foreach ($_SERVER as $k => $v) {
            if (is_string($v) && str_starts_with($k, 'HTTP_')) {
                $headers[strtolower(str_replace('_', '-', substr($k, 5)))] = $v;
            }
        }
        return new self(
            strtoupper((string)($_SERVER['REQUEST_METHOD'] ?? 'GET')),
            $_GET,
            $_POST,
            array_filter($_COOKIE, 'is_string'),
            $headers,
            !empty($_SERVER['HTTPS']) && $_SERVER['HTTPS'] !== 'off',
            (string)($_SERVER['REMOTE_ADDR'] ?? ''),
        );
    }

    /**
     * From a Symfony HttpFoundation request (Laravel's request is one): the
     * Laravel and Symfony mounts. $cookies, when given, stands for the
     * request's own (Laravel's EncryptCookies drops the cookies it did not
     * encrypt itself, the dashboard's among them).
     *
     * @param array<string, string>|null $cookies
     */
    public static function fromHttpFoundation(\Symfony\Component\HttpFoundation\Request $request, ?array $cookies = null): self
    {
        return new self(
            $request->getMethod(),
            $request->query->all(),
            $request->request->all(),
            $cookies ?? array_filter($request->cookies->all(), 'is_string'),
            array_map(static fn ($v) => (string)($v[0] ?? ''), $request->headers->all()),
            $request->isSecure(),
            (string)$request->getClientIp(),
        );
    }

    /** A query parameter as a string ('' when absent or not a string). */
    public function get(string $name): string
    {
        $v = $this->query[$name] ?? '';
        return is_string($v) ? $v : '';
    }

    /** A form field as a string ('' when absent or not a string). */
    public function field(string $name): string
    {
        $v = $this->post[$name] ?? '';
        return is_string($v) ? $v : '';
    }

    public function header(string $name): string
    {
        return $this->headers[strtolower($name)] ?? '';
    }
}

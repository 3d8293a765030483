<?php

declare(strict_types=1);

namespace RedisKit\Dashboard;

/** What the dashboard answers: a status, headers and a body. */
final class Response
{
    /**
     * @param array<string, string> $headers
     * @param list<string> $cookies Set-Cookie header values
     */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        public readonly string $body,
        public readonly array $cookies = [],
    ) {
    }

    /**
     * As a Symfony HttpFoundation response (the Laravel and Symfony mounts):
     * of $class, Symfony's Response or a subclass (Laravel's).
     *
     * @template T of \Symfony\Component\HttpFoundation\Response
     * @param class-string<T> $class
     * @return T
     */
    public function toHttpFoundation(string $class = \Symfony\Component\HttpFoundation\Response::class): \Symfony\Component\HttpFoundation\Response
    {
        $response = new $class($this->body, $this->status, $this->headers);
        foreach ($this->cookies as $c) {
            $response->headers->set('Set-Cookie', $c, false);
        }
        return $response;
    }

    /** Sends it with PHP's header() and echo (a plain PHP front controller). */
    public function send(): void
    {
        http_response_code($this->status);
        foreach ($this->headers as $name => $value) {
            header("$name: $value");
        }
        foreach ($this->cookies as $c) {
            header("Set-Cookie: $c", false);
        }
        echo $this->body;
    }
}

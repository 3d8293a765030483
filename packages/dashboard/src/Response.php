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

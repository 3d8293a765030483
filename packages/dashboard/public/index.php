<?php
// The dashboard as a plain PHP page: put this file where your web server runs
// PHP (behind HTTPS), or `php -S 127.0.0.1:8080 public/index.php` to try it.
//
// Who may see it is yours to decide: here, HTTP basic auth against the
// REDISKIT_DASHBOARD_USER and REDISKIT_DASHBOARD_PASSWORD environment
// variables. With them unset, nobody may: the page answers 401 to all.
declare(strict_types=1);

require is_file(__DIR__ . '/../vendor/autoload.php') ? __DIR__ . '/../vendor/autoload.php' : __DIR__ . '/../autoload.php';

use RedisKit\Dashboard\Dashboard;
use RedisKit\Dashboard\Request;

$user = (string)getenv('REDISKIT_DASHBOARD_USER');
$password = (string)getenv('REDISKIT_DASHBOARD_PASSWORD');
$allowed = static function (Request $r) use ($user, $password): bool {
    if ($user === '' || $password === '') {
        return false;
    }
    $auth = $r->header('authorization');
    if (!str_starts_with($auth, 'Basic ')) {
        return false;
    }
    [$u, $p] = explode(':', (string)base64_decode(substr($auth, 6), true), 2) + [1 => ''];
    return hash_equals($user, $u) && hash_equals($password, $p);
};

$request = Request::fromGlobals();
if (!$allowed($request)) {
    http_response_code(401);
    header('WWW-Authenticate: Basic realm="rediskit", charset="UTF-8"');
    header('Content-Type: text/plain; charset=utf-8');
    echo "Unauthorized\n";
    return;
}
(new Dashboard([
    'authorize' => $allowed,
    'connection' => getenv('REDISKIT_DSN') ?: null,     // null: ini rediskit.default_dsn
    'prefix' => getenv('REDISKIT_PREFIX') ?: null,      // null: ini rediskit.prefix
    'secret' => getenv('REDISKIT_DASHBOARD_SECRET') ?: null,
]))->handle($request)->send();

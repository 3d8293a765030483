<?php

declare(strict_types=1);

namespace RedisKit\Dashboard;

use RedisKit\DelayQueue;
use RedisKit\RedisLock;

/**
 * The operator dashboard: one URL, pages chosen by `?p=`, actions by POST.
 *
 * Secure by default:
 * - every request, page or action, first asks the `authorize` callback;
 *   anything but `true` (or an exception) is a 403 with nothing shown;
 * - every action is a POST carrying a CSRF token bound to a cookie of its
 *   own (SameSite=Strict, HttpOnly), and a cross-site POST is refused;
 * - every value read from Redis is escaped; the Content-Security-Policy
 *   allows no script at all and only the page's own style block;
 * - a queue is acted on only when the registry lists it.
 */
final class Dashboard
{
    private const PAGES = ['overview', 'queue', 'locks', 'limiters', 'caches', 'connections', 'server'];
    private const ACTIONS = ['requeue', 'delete', 'requeue_all', 'delete_all', 'purge', 'pause', 'resume'];
    private const OPTIONS = ['authorize', 'connection', 'prefix', 'secret', 'logger', 'title', 'csrf'];
    private const COOKIE = 'rediskit_csrf';
    /** The most objects of one kind a page inspects (one round trip each). */
    public const MAX_LISTED = 100;
    private const PAGE_SIZE = 50;
    private const PREVIEW = 200;

    /** @var \Closure(Request): mixed */
    private \Closure $authorize;
    private string|array|null $connection;
    private ?string $prefix;
    private string $secret;
    private ?object $logger;
    private string $title;
    /** The host framework's own CSRF token and its form field, or null: the dashboard's cookie. */
    private ?array $csrf;

    /**
     * @param array{authorize: callable(Request): bool, connection?: string|array|null, prefix?: ?string,
     *              secret?: ?string, logger?: ?object, title?: string} $options
     *   authorize: who may see the dashboard and act (required; return true to allow);
     *   connection, prefix: as the classes take them (null: the ini defaults);
     *   secret: at least 32 bytes: CSRF tokens are then an HMAC of the cookie (else the cookie itself);
     *   logger: a PSR-3 logger, told of every action (info) and every refused one (warning);
     *   title: the page title;
     *   csrf: ['field' => name, 'token' => value]: the host framework's own session-bound CSRF token
     *     (Laravel's csrf_token() in the `web` middleware group), carried by every form and checked
     *     here too, in place of the dashboard's cookie.
     */
    public function __construct(array $options)
    {
        foreach (array_keys($options) as $k) {
            if (!in_array($k, self::OPTIONS, true)) {
                throw new \ValueError("Dashboard: unknown option '$k' (known: " . implode(', ', self::OPTIONS) . ')');
            }
        }
        if (!isset($options['authorize']) || !is_callable($options['authorize'])) {
            throw new \ValueError("Dashboard: the 'authorize' option is required: a callable that returns true for who may see the dashboard");
        }
        $this->authorize = \Closure::fromCallable($options['authorize']);
        $conn = $options['connection'] ?? null;
        if (!is_string($conn) && !is_array($conn) && $conn !== null) {
            throw new \ValueError("Dashboard: option 'connection' must be a DSN, an array or null");
        }
        $this->connection = $conn;
        $prefix = $options['prefix'] ?? null;
        if ($prefix !== null && !is_string($prefix)) {
            throw new \ValueError("Dashboard: option 'prefix' must be a string or null");
        }
        $this->prefix = $prefix;
        $secret = $options['secret'] ?? '';
        if (!is_string($secret) || ($secret !== '' && strlen($secret) < 32)) {
            throw new \ValueError("Dashboard: option 'secret' must be a string of at least 32 bytes");
        }
        $this->secret = $secret;
        $logger = $options['logger'] ?? null;
        if ($logger !== null && !(is_object($logger) && method_exists($logger, 'info') && method_exists($logger, 'warning'))) {
            throw new \ValueError("Dashboard: option 'logger' must be a PSR-3 logger");
        }
        $this->logger = $logger;
        $this->title = (string)($options['title'] ?? 'rediskit');
        $csrf = $options['csrf'] ?? null;
        if ($csrf !== null && !(is_array($csrf) && is_string($csrf['field'] ?? null) && preg_match('/^\w+$/', $csrf['field'])
                && is_string($csrf['token'] ?? null) && strlen($csrf['token']) >= 16)) {
            throw new \ValueError("Dashboard: option 'csrf' must be ['field' => a form field name, 'token' => a token of at least 16 bytes]");
        }
        $this->csrf = $csrf;
    }

    /** A plain PHP front controller: `Dashboard::serve([...]);` is the whole file. */
    public static function serve(array $options): void
    {
        (new self($options))->handle(Request::fromGlobals())->send();
    }

    public function handle(Request $r): Response
    {
        try {
            $allowed = ($this->authorize)($r) === true;
        } catch (\Throwable) {
            $allowed = false;
        }
        if (!$allowed) {
            return $this->plain(403, 'Forbidden');
        }
        [$token, $setCookie] = $this->csrf($r);
        if ($r->method === 'POST') {
            return $this->act($r, $token, $setCookie);
        }
        if ($r->method !== 'GET' && $r->method !== 'HEAD') {
            return $this->plain(405, 'Method Not Allowed', ['Allow' => 'GET, HEAD, POST']);
        }
        $page = $r->get('p') ?: 'overview';
        if (!in_array($page, self::PAGES, true)) {
            return $this->plain(404, 'Not Found');
        }
        $nonce = base64_encode(random_bytes(16));
        $status = 200;
        try {
            $body = $this->{'page' . ucfirst($page)}($r, $token);
        } catch (\RedisKit\Exception $e) {
            $status = 502;
            $body = '<h1>Redis error</h1><p class="bad">' . self::e(get_class($e) . ': ' . $e->getMessage()) . '</p>';
        } catch (\ValueError $e) {
            $status = 400;
            $body = '<h1>Bad request</h1><p class="bad">' . self::e($e->getMessage()) . '</p>';
        }
        return new Response($status, $this->headers($nonce), $this->layout($page, $body, $nonce, $r), $setCookie);
    }

    // ---- security -------------------------------------------------------

    /** The token forms carry, and the cookie to set when the request had none. */
    private function csrf(Request $r): array
    {
        if ($this->csrf !== null) {
            return [$this->csrf['token'], []];
        }
        $cookie = $r->cookies[self::COOKIE] ?? '';
        $set = [];
        if (!preg_match('/^[A-Za-z0-9_-]{43}$/', $cookie)) {
            $cookie = rtrim(strtr(base64_encode(random_bytes(32)), '+/', '-_'), '=');
            $set[] = self::COOKIE . '=' . $cookie . '; Path=/; HttpOnly; SameSite=Strict' . ($r->secure ? '; Secure' : '');
        }
        $token = $this->secret !== '' ? hash_hmac('sha256', $cookie, $this->secret) : $cookie;
        return [$token, $set];
    }

    private function csrfRefusal(Request $r, string $token): ?string
    {
        if ($this->csrf === null && ($r->cookies[self::COOKIE] ?? '') === '') {
            return 'no CSRF cookie';
        }
        if (!hash_equals($token, $r->field($this->csrf['field'] ?? '_token'))) {
            return 'bad CSRF token';
        }
        if (strtolower($r->header('sec-fetch-site')) === 'cross-site') {
            return 'a cross-site request';
        }
        $origin = $r->header('origin');
        $host = $r->header('host');
        if ($origin !== '' && $host !== '' && strtolower((string)parse_url($origin, PHP_URL_HOST) . (parse_url($origin, PHP_URL_PORT) ? ':' . parse_url($origin, PHP_URL_PORT) : '')) !== strtolower($host)) {
            return 'an Origin other than this host';
        }
        return null;
    }

    private function headers(string $nonce): array
    {
        return [
            'Content-Type' => 'text/html; charset=utf-8',
            'Content-Security-Policy' => "default-src 'none'; style-src 'nonce-$nonce'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            'X-Content-Type-Options' => 'nosniff',
            'X-Frame-Options' => 'DENY',
            'Referrer-Policy' => 'same-origin',
            'Cache-Control' => 'no-store',
        ];
    }

    private function plain(int $status, string $text, array $extra = []): Response
    {
        return new Response($status, [
            'Content-Type' => 'text/plain; charset=utf-8',
            'Content-Security-Policy' => "default-src 'none'; frame-ancestors 'none'",
            'X-Content-Type-Options' => 'nosniff',
            'Cache-Control' => 'no-store',
        ] + $extra, "$text\n");
    }

    private function log(string $level, string $message, array $context): void
    {
        $this->logger?->{$level}($message, $context);
    }

    // ---- actions --------------------------------------------------------

    private function act(Request $r, string $token, array $setCookie): Response
    {
        $action = $r->field('action');
        $name = $r->field('queue');
        $context = ['action' => $action, 'queue' => $name, 'client_ip' => $r->clientIp];
        if (($why = $this->csrfRefusal($r, $token)) !== null) {
            $this->log('warning', "rediskit dashboard: action refused ($why)", $context);
            return $this->plain(403, "Forbidden: $why");
        }
        if (!in_array($action, self::ACTIONS, true)) {
            return $this->plain(400, 'Bad Request: unknown action');
        }
        try {
            $r2 = \RedisKit\registry($this->connection, $this->prefix);
            if (!in_array($name, array_column($r2['queues'], 'name'), true) && !in_array('queues', $r2['full'], true)) {
                return $this->plain(404, 'Not Found: no such queue in the registry');
            }
            $q = $this->queue($name);
            $id = $r->field('id');
            if (($action === 'requeue' || $action === 'delete') && $id === '') {
                throw new \ValueError("$action: which job? (id)");
            }
            $done = match ($action) {
                'requeue' => $q->requeueDead($id) . ' requeued',
                'delete' => $q->deleteDead($id) . ' deleted',
                'requeue_all' => $q->requeueDead(null) . ' requeued',
                'delete_all' => $q->deleteDead(null) . ' deleted',
                'purge' => $r->field('confirm') === 'yes'
                    ? self::purged($q)
                    : throw new \ValueError('purge: tick the box to confirm'),
                'pause' => $q->pause() ? 'paused' : 'already paused',
                'resume' => $q->resume() ? 'resumed' : 'not paused',
            };
        } catch (\ValueError $e) {
            return $this->plain(400, 'Bad Request: ' . $e->getMessage());
        } catch (\RedisKit\Exception $e) {
            $this->log('warning', "rediskit dashboard: $action failed", $context + ['error' => $e->getMessage()]);
            return $this->plain(502, 'Redis error: ' . $e->getMessage());
        }
        $this->log('info', "rediskit dashboard: $action", $context + ($id !== '' ? ['id' => $id] : []) + ['result' => $done]);
        $to = '?' . http_build_query(['p' => 'queue', 'name' => $name, 'done' => "$action: $done"]);
        return new Response(303, ['Location' => $to, 'Cache-Control' => 'no-store'], '', $setCookie);
    }

    private static function purged(DelayQueue $q): string
    {
        $q->purge();
        return 'every job removed';
    }

    private function queue(string $name): DelayQueue
    {
        return new DelayQueue($name, $this->connection, $this->prefix === null ? [] : ['prefix' => $this->prefix]);
    }

    private function form(string $token, string $queue, string $action, string $label, array $fields = [], string $class = ''): string
    {
        $h = '<form method="post" action="?' . self::e(http_build_query(['p' => 'queue', 'name' => $queue])) . '" class="inline">'
            . '<input type="hidden" name="' . self::e($this->csrf['field'] ?? '_token') . '" value="' . self::e($token) . '">'
            . '<input type="hidden" name="queue" value="' . self::e($queue) . '">'
            . '<input type="hidden" name="action" value="' . self::e($action) . '">';
        foreach ($fields as $k => $v) {
            $h .= $v === null
                ? '<label><input type="checkbox" name="' . self::e($k) . '" value="yes"> confirm</label> '
                : '<input type="hidden" name="' . self::e($k) . '" value="' . self::e($v) . '">';
        }
        return $h . '<button type="submit"' . ($class ? ' class="' . $class . '"' : '') . '>' . self::e($label) . '</button></form>';
    }

    // ---- pages ----------------------------------------------------------

    private function pageOverview(Request $r, string $token): string
    {
        $reg = \RedisKit\registry($this->connection, $this->prefix);
        $m = \RedisKit\metrics();
        $h = '<h1>Overview</h1>';
        $h .= '<h2>Queues</h2>';
        if (!$reg['queues']) {
            $h .= '<p class="muted">No queue has recorded itself yet.</p>';
        } else {
            $rows = [];
            foreach (array_slice($reg['queues'], 0, self::MAX_LISTED) as $e) {
                $i = $this->queue($e['name'])->inspect();
                [$health, $class] = self::queueHealth($i);
                $rows[] = ['<a href="?' . self::e(http_build_query(['p' => 'queue', 'name' => $e['name']])) . '">' . self::e($e['name']) . '</a>',
                    $i['scheduled'], $i['due'], $i['in_flight'], $i['dead'], self::secs($i['lag']),
                    '<span class="' . $class . '">' . $health . '</span>'];
            }
            $h .= self::table(['queue', 'scheduled', 'due', 'in flight', 'dead', 'lag', 'health'], $rows, true);
            $h .= self::more(count($reg['queues']));
        }
        $h .= '<h2>Locks</h2><p>' . count($reg['locks']) . ' recorded. <a href="?p=locks">Holders, TTLs, fencing tokens, waiters</a></p>';
        $h .= '<h2>Limiters</h2>';
        $rows = [];
        foreach ($reg['limiters'] as $e) {
            $c = $m['limiter'][$e['name']] ?? [];
            $rows[] = [self::e($e['name']), self::e($e['algorithm'] ?? ''), self::e(($e['limit'] ?? '') . ' per ' . ($e['window'] ?? '') . ' s'),
                (int)($c['allowed'] ?? 0), (int)($c['denied'] ?? 0)];
        }
        $h .= $rows ? self::table(['limiter', 'algorithm', 'policy', 'allowed (this server)', 'denied (this server)'], $rows, true)
            : '<p class="muted">No limiter has recorded itself yet.</p>';
        $h .= '<h2>Caches</h2>';
        $rows = [];
        foreach ($reg['caches'] as $e) {
            $c = $m['cache'][$e['name']] ?? [];
            $rows[] = [self::e($e['name']), self::ratio((int)($c['hits'] ?? 0), (int)($c['misses'] ?? 0)), (int)($c['computes'] ?? 0), (int)($c['waits'] ?? 0)];
        }
        $h .= $rows ? self::table(['cache', 'hit ratio (this server)', 'computes', 'stampedes collapsed'], $rows, true)
            : '<p class="muted">No cache has recorded itself yet.</p>';
        $h .= '<h2>Servers</h2>';
        $rows = [];
        foreach (\RedisKit\serverInfo($this->connection, 0) as $s) {
            $rows[] = [self::e($s['address']), self::memory($s), self::e((string)($s['maxmemory_policy'] ?? '')), (int)($s['evicted_keys'] ?? 0),
                (int)($s['connected_clients'] ?? 0)];
        }
        $h .= self::table(['server', 'memory', 'policy', 'evicted keys', 'clients'], $rows, true);
        if ($reg['full']) {
            $h .= '<p class="warn">The registry is full for: ' . self::e(implode(', ', $reg['full'])) . ' (1,000 entries each); objects past it are not listed.</p>';
        }
        return $h;
    }

    /** @return array{0: string, 1: string} */
    private static function queueHealth(array $i): array
    {
        return match (true) {
            $i['paused'] => ['paused', 'warn'],
            $i['dead'] > 0 => ['dead letters', 'bad'],
            $i['lag'] > 60 => ['lagging', 'warn'],
            default => ['ok', 'good'],
        };
    }

    private function pageQueue(Request $r, string $token): string
    {
        $name = $r->get('name');
        if ($name === '') {
            throw new \ValueError('which queue? (name=)');
        }
        $q = $this->queue($name);
        $i = $q->inspect();
        [$health, $class] = self::queueHealth($i);
        $h = '<h1>Queue ' . self::e($name) . ' <span class="' . $class . '">' . $health . '</span></h1>';
        if (($done = $r->get('done')) !== '') {
            $h .= '<p class="flash">' . self::e($done) . '</p>';
        }
        $h .= self::table(['scheduled', 'due', 'in flight', 'dead', 'lag', 'oldest due', 'next due'], [[
            $i['scheduled'], $i['due'], $i['in_flight'], $i['dead'], self::secs($i['lag']),
            self::time($i['oldest_due_at']), self::time($i['next_due_at'])]], true);
        $h .= '<p>' . ($i['paused']
            ? $this->form($token, $name, 'resume', 'Resume')
            : $this->form($token, $name, 'pause', 'Pause'))
            . ' ' . $this->form($token, $name, 'purge', 'Purge every job', ['confirm' => null], 'danger') . '</p>';
        $mq = \RedisKit\metrics()['queue'][$name] ?? null;
        if ($mq) {
            $h .= '<h2>On this server since PHP started</h2>';
            $h .= self::table(['pushed', 'claimed', 'acked', 'retried', 'redelivered', 'dead-lettered'],
                [[$mq['pushed'], $mq['claimed'], $mq['acked'], $mq['retried'], $mq['redelivered'], $mq['dead_lettered']]], true);
            $h .= '<div class="charts">' . Chart::perMinute('Jobs per minute, last hour', [
                    'pushed' => ['#9db7dd', $mq['per_minute']['pushed']],
                    'acked' => ['#17803d', $mq['per_minute']['acked']],
                ]) . '</div>';
            $h .= '<div class="charts">' . Chart::histogram('Due-to-claim lag', $mq['lag_seconds'])
                . Chart::histogram('Handler time', $mq['handler_seconds']) . '</div>';
        }
        // one job by id
        $h .= '<h2>Find a job</h2><form method="get" class="inline"><input type="hidden" name="p" value="queue">'
            . '<input type="hidden" name="name" value="' . self::e($name) . '">'
            . '<input type="search" name="id" placeholder="job id" value="' . self::e($r->get('id')) . '"> <button type="submit">Find</button></form>';
        if (($id = $r->get('id')) !== '') {
            $job = $q->job($id);
            if ($job === null) {
                $h .= '<p class="muted">No job ' . self::e($id) . ' in any state.</p>';
            } else {
                $h .= self::table(['id', 'state', 'attempts', 'time', 'owner', 'bytes'], [[self::e($job['id']), self::e($job['state']),
                    $job['attempts'], self::time($job['at']), self::e((string)$job['owner']), $job['size']]], true);
                $h .= '<pre class="payload">' . self::e($job['payload']) . '</pre>';
                if ($job['state'] === 'dead') {
                    $h .= '<p>' . $this->form($token, $name, 'requeue', 'Requeue', ['id' => $job['id']])
                        . ' ' . $this->form($token, $name, 'delete', 'Delete', ['id' => $job['id']], 'danger') . '</p>';
                }
            }
        }
        // the jobs of one state, a page at a time
        $state = $r->get('state') ?: 'dead';
        $tabs = [];
        foreach (['scheduled' => 'Scheduled', 'due' => 'Due', 'in_flight' => 'In flight', 'dead' => 'Dead'] as $s => $label) {
            $tabs[] = $s === $state ? '<strong>' . $label . '</strong>'
                : '<a href="?' . self::e(http_build_query(['p' => 'queue', 'name' => $name, 'state' => $s])) . '">' . $label . '</a>';
        }
        $h .= '<h2>Jobs</h2><p class="tabs">' . implode(' · ', $tabs) . '</p>';
        $cursor = $r->get('cursor');
        $page = $q->jobs($state, $cursor === '' ? null : $cursor, self::PAGE_SIZE, self::PREVIEW);
        if ($state === 'dead' && $i['dead'] > 0) {
            $h .= '<p>' . $this->form($token, $name, 'requeue_all', 'Requeue all dead')
                . ' ' . $this->form($token, $name, 'delete_all', 'Delete all dead', [], 'danger') . '</p>';
        }
        $rows = [];
        foreach ($page['jobs'] as $j) {
            $row = ['<a href="?' . self::e(http_build_query(['p' => 'queue', 'name' => $name, 'id' => $j['id']])) . '">' . self::e($j['id']) . '</a>',
                $j['attempts'], self::time($j['at']), self::e((string)$j['owner']), $j['size'],
                '<code>' . self::e($j['payload']) . ($j['size'] > strlen($j['payload']) ? '…' : '') . '</code>'];
            if ($state === 'dead') {
                $row[] = $this->form($token, $name, 'requeue', 'Requeue', ['id' => $j['id']])
                    . ' ' . $this->form($token, $name, 'delete', 'Delete', ['id' => $j['id']], 'danger');
            }
            $rows[] = $row;
        }
        $head = ['id', 'attempts', $state === 'in_flight' ? 'claim deadline' : ($state === 'dead' ? 'dead since' : 'due'), 'owner', 'bytes', 'payload'];
        if ($state === 'dead') {
            $head[] = '';
        }
        $h .= $rows ? self::table($head, $rows, true) : '<p class="muted">None.</p>';
        if ($page['cursor'] !== null) {
            $h .= '<p><a href="?' . self::e(http_build_query(['p' => 'queue', 'name' => $name, 'state' => $state, 'cursor' => $page['cursor']])) . '">Next page</a></p>';
        }
        return $h;
    }

    private function pageLocks(Request $r, string $token): string
    {
        $reg = \RedisKit\registry($this->connection, $this->prefix);
        $m = \RedisKit\metrics();
        $h = '<h1>Locks</h1>';
        $rows = [];
        foreach (array_slice($reg['locks'], 0, self::MAX_LISTED) as $e) {
            $opts = ['watchdog' => false] + ($this->prefix === null ? [] : ['prefix' => $this->prefix]);
            $v = (new RedisLock($e['name'], $this->connection, $opts))->inspect();
            $c = $m['lock'][$e['name']] ?? [];
            $rows[] = [self::e($e['name']),
                $v['holder'] === null ? '<span class="muted">free</span>' : '<code>' . self::e($v['holder']) . '</code>',
                $v['ttl'] === null ? '' : self::secs($v['ttl']),
                $v['fencing_token'] === null ? '' : (int)$v['fencing_token'],
                (int)$v['waiters'] . ($v['queue'] ? ': ' . implode(', ', array_map(fn($w) => '<code>' . self::e((string)$w) . '</code>', $v['queue'])) : ''),
                (int)($c['acquired'] ?? 0), (int)($c['contended'] ?? 0), (int)($c['timed_out'] ?? 0), (int)($c['lost'] ?? 0)];
        }
        $h .= $rows ? self::table(['lock', 'holder', 'TTL', 'fencing token', 'waiters', 'acquired', 'contended', 'timed out', 'lost'], $rows, true)
            : '<p class="muted">No lock has recorded itself yet.</p>';
        $h .= self::more(count($reg['locks']));
        $h .= '<p class="muted">Acquired, contended, timed out and lost: this server, since PHP started.</p>';
        $h .= self::hot('Hottest locks on this server', $m['hot']['lock'] ?? []);
        return $h;
    }

    private function pageLimiters(Request $r, string $token): string
    {
        $reg = \RedisKit\registry($this->connection, $this->prefix);
        $m = \RedisKit\metrics();
        $rows = [];
        foreach ($reg['limiters'] as $e) {
            $c = $m['limiter'][$e['name']] ?? [];
            $allowed = (int)($c['allowed'] ?? 0);
            $denied = (int)($c['denied'] ?? 0);
            $rows[] = [self::e($e['name']), self::e((string)($e['algorithm'] ?? '')), self::e(($e['limit'] ?? '') . ' per ' . ($e['window'] ?? '') . ' s'
                . (isset($e['burst']) ? ', burst ' . $e['burst'] : '')), $allowed, $denied,
                $allowed + $denied > 0 ? sprintf('%.1f%%', 100 * $denied / ($allowed + $denied)) : '', (int)($c['local_blocks'] ?? 0), (int)($c['fail_open'] ?? 0)];
        }
        $h = '<h1>Limiters</h1>';
        $h .= $rows ? self::table(['limiter', 'algorithm', 'policy', 'allowed', 'denied', 'denied share', 'local blocks', 'fail-open'], $rows, true)
            : '<p class="muted">No limiter has recorded itself yet.</p>';
        $h .= '<p class="muted">Counts: this server, since PHP started.</p>';
        return $h . self::hot('Hottest keys on this server (limiter:key)', $m['hot']['limiter'] ?? []);
    }

    private function pageCaches(Request $r, string $token): string
    {
        $reg = \RedisKit\registry($this->connection, $this->prefix);
        $m = \RedisKit\metrics();
        $names = array_unique(array_merge(array_column($reg['caches'], 'name'), array_keys($m['cache'] ?? [])));
        sort($names);
        $rows = [];
        $charts = '';
        foreach ($names as $n) {
            $c = $m['cache'][$n] ?? [];
            $rows[] = [self::e((string)$n), self::ratio((int)($c['hits'] ?? 0), (int)($c['misses'] ?? 0)), (int)($c['hits'] ?? 0), (int)($c['misses'] ?? 0),
                (int)($c['computes'] ?? 0), (int)($c['waits'] ?? 0), (int)($c['early_refreshes'] ?? 0), (int)($c['stale_served'] ?? 0), (int)($c['local_hits'] ?? 0)];
            if (isset($c['compute_seconds'])) {
                $charts .= Chart::histogram('Compute time: ' . $n, $c['compute_seconds']);
            }
        }
        $h = '<h1>Caches</h1>';
        $h .= $rows ? self::table(['cache', 'hit ratio', 'hits', 'misses', 'computes', 'stampedes collapsed', 'early refreshes', 'stale served', 'local hits'], $rows, true)
            : '<p class="muted">No cache has recorded itself yet.</p>';
        return $h . '<p class="muted">Counts: this server, since PHP started.</p><div class="charts">' . $charts . '</div>';
    }

    private function pageConnections(Request $r, string $token): string
    {
        $m = \RedisKit\metrics();
        $h = '<h1>Connections</h1>';
        $rows = [];
        $charts = '';
        foreach ($m['connection'] ?? [] as $target => $c) {
            $e = $c['errors'];
            $rows[] = [self::e((string)$target), $c['commands'], $c['round_trips'], $c['reconnects'],
                $e['connect'] ?? 0, $e['timeout'] ?? 0, $e['lost'] ?? 0, $e['server'] ?? 0,
                $c['round_trips'] > 0 ? sprintf('%.3f ms', 1000 * $c['round_trip_seconds']['sum'] / $c['round_trips']) : ''];
            $charts .= Chart::histogram('Round trips to ' . $target, $c['round_trip_seconds']);
        }
        $h .= $rows ? self::table(['server', 'commands', 'round trips', 'reconnects', 'connect errors', 'timeouts', 'lost', 'server errors', 'mean round trip'], $rows, true)
            : '<p class="muted">No connection yet on this server.</p>';
        return $h . '<p class="muted">This server, since PHP started.</p><div class="charts">' . $charts . '</div>';
    }

    private function pageServer(Request $r, string $token): string
    {
        $h = '<h1>Redis servers</h1>';
        foreach (\RedisKit\serverInfo($this->connection, 20) as $s) {
            $h .= '<h2>' . self::e($s['address']) . '</h2>';
            $h .= Chart::gauge('Memory', (int)($s['used_memory'] ?? 0), (int)($s['maxmemory'] ?? 0));
            $hits = (int)($s['keyspace_hits'] ?? 0);
            $misses = (int)($s['keyspace_misses'] ?? 0);
            $h .= self::table(['version', 'role', 'memory', 'policy', 'evicted keys', 'expired keys', 'clients', 'blocked', 'ops/s', 'keyspace hit ratio', 'keys'], [[
                self::e((string)($s['redis_version'] ?? ('valkey ' . ($s['valkey_version'] ?? '?')))), self::e((string)($s['role'] ?? '')),
                self::memory($s), self::e((string)($s['maxmemory_policy'] ?? '')), (int)($s['evicted_keys'] ?? 0), (int)($s['expired_keys'] ?? 0),
                (int)($s['connected_clients'] ?? 0), (int)($s['blocked_clients'] ?? 0), (int)($s['instantaneous_ops_per_sec'] ?? 0),
                self::ratio($hits, $misses), self::e(implode(', ', array_map(fn($db, $n) => "$db: $n", array_keys($s['keys']), $s['keys'])))]], true);
            $h .= '<h3>Slow log (' . (int)$s['slowlog_len'] . ' entries; the latest ' . count($s['slowlog']) . ')</h3>';
            $rows = [];
            foreach ($s['slowlog'] as $e) {
                $rows[] = [(int)$e['id'], self::time((float)$e['time']), sprintf('%.3f ms', $e['duration'] * 1000),
                    '<code>' . self::e(implode(' ', $e['command'])) . '</code>', self::e($e['client'])];
            }
            $h .= $rows ? self::table(['id', 'when', 'took', 'command', 'client'], $rows, true) : '<p class="muted">Empty.</p>';
        }
        return $h;
    }

    // ---- rendering ------------------------------------------------------

    /** Escapes text for HTML (invalid UTF-8, such as binary payloads, shown as U+FFFD). */
    public static function e(string $s): string
    {
        return htmlspecialchars($s, ENT_QUOTES | ENT_SUBSTITUTE | ENT_HTML5, 'UTF-8');
    }

    /** A table; cells are HTML already when $html, else escaped here. */
    private static function table(array $head, array $rows, bool $html): string
    {
        $t = '<table><thead><tr>';
        foreach ($head as $c) {
            $t .= '<th>' . self::e((string)$c) . '</th>';
        }
        $t .= '</tr></thead><tbody>';
        foreach ($rows as $row) {
            $t .= '<tr>';
            foreach ($row as $c) {
                $t .= '<td>' . ($html ? (string)$c : self::e((string)$c)) . '</td>';
            }
            $t .= '</tr>';
        }
        return $t . '</tbody></table>';
    }

    private static function more(int $n): string
    {
        return $n > self::MAX_LISTED ? '<p class="muted">The first ' . self::MAX_LISTED . " of $n.</p>" : '';
    }

    private static function hot(string $title, array $keys): string
    {
        if (!$keys) {
            return '';
        }
        $rows = array_map(fn($k) => ['<code>' . self::e((string)$k['key']) . '</code>', (int)$k['count'], (int)$k['error']], $keys);
        return '<h2>' . self::e($title) . '</h2>' . self::table(['key', 'uses (estimate)', 'at most over by'], $rows, true);
    }

    private static function secs(float|int|null $s): string
    {
        return $s === null ? '' : ($s < 1 ? sprintf('%.0f ms', $s * 1000) : sprintf('%.1f s', $s));
    }

    private static function time(float|int|null $t): string
    {
        return $t === null ? '' : gmdate('Y-m-d H:i:s', (int)$t) . ' UTC';
    }

    private static function ratio(int $hits, int $misses): string
    {
        return $hits + $misses > 0 ? sprintf('%.1f%%', 100 * $hits / ($hits + $misses)) : '';
    }

    private static function bytes(int $b): string
    {
        foreach (['GiB' => 1 << 30, 'MiB' => 1 << 20, 'KiB' => 1 << 10] as $u => $n) {
            if ($b >= $n) {
                return sprintf('%.1f %s', $b / $n, $u);
            }
        }
        return "$b B";
    }

    private static function memory(array $s): string
    {
        $used = (int)($s['used_memory'] ?? 0);
        $max = (int)($s['maxmemory'] ?? 0);
        return self::bytes($used) . ($max > 0 ? sprintf(' of %s (%.0f%%)', self::bytes($max), 100 * $used / $max) : ' (no maxmemory)');
    }

    private function layout(string $page, string $body, string $nonce, Request $r): string
    {
        $nav = '';
        foreach (['overview' => 'Overview', 'locks' => 'Locks', 'limiters' => 'Limiters', 'caches' => 'Caches',
                     'connections' => 'Connections', 'server' => 'Servers'] as $p => $label) {
            $nav .= '<a href="?p=' . $p . '"' . ($p === $page ? ' aria-current="page"' : '') . '>' . $label . '</a>';
        }
        $title = self::e($this->title);
        return <<<HTML
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title>
<style nonce="$nonce">
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#1f3b64;color:#fff;padding:10px 20px;display:flex;gap:18px;align-items:center;flex-wrap:wrap}
header b{font-size:16px;margin-right:12px}header a{color:#dbe6f6;text-decoration:none}header a[aria-current]{color:#fff;font-weight:600;border-bottom:2px solid #fff}
main{padding:16px 20px;max-width:1200px}
h1{font-size:20px;margin:6px 0 12px}h2{font-size:16px;margin:20px 0 8px}h3{font-size:14px}
table{border-collapse:collapse;background:#fff;margin:6px 0;font-size:13px}th,td{border:1px solid #d5d9e0;padding:4px 8px;text-align:left;vertical-align:top}th{background:#e9edf3}
code,pre{font:12px ui-monospace,monospace;word-break:break-all}pre.payload{background:#fff;border:1px solid #d5d9e0;padding:8px;max-height:300px;overflow:auto;white-space:pre-wrap}
.good{color:#17803d;font-weight:600}.warn{color:#a15c00;font-weight:600}.bad{color:#b42318;font-weight:600}.muted{color:#667085}
.flash{background:#e7f5ec;border:1px solid #9bd3ad;padding:6px 10px}
form.inline{display:inline}button{font:inherit;padding:2px 10px;border:1px solid #8a94a6;border-radius:4px;background:#fff;cursor:pointer}button.danger{border-color:#b42318;color:#b42318}
.charts{display:flex;flex-wrap:wrap;gap:16px}.charts svg,svg.gauge{background:#fff;border:1px solid #d5d9e0}
</style></head>
<body><header><b>$title</b>$nav</header><main>$body</main></body></html>
HTML;
    }
}

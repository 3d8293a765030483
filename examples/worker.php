<?php
/**
 * A RedisKit\DelayQueue consumer to run under supervisord, systemd or any
 * process supervisor:
 *
 *   QUEUE_NAME=emails WORKER_HANDLER=/srv/app/handle_email.php php examples/worker.php
 *
 * Configuration (environment variables):
 *   REDIS_DSN           redis:// DSN (default: ini rediskit.default_dsn)
 *   QUEUE_NAME          queue name (default "jobs")
 *   QUEUE_PREFIX        key prefix (default: ini rediskit.prefix)
 *   VISIBILITY_TIMEOUT  seconds a claimed job stays invisible to other consumers (30)
 *   MAX_ATTEMPTS        deliveries before a job goes to the dead set (5; 0 = unlimited)
 *   BACKOFF             base seconds of the backoff after a visibility timeout (1)
 *   BATCH               jobs claimed per pop() (1)
 *   WAIT                seconds one pop() blocks waiting for a due job (2); a signal
 *                       ends the wait at once
 *   RETRY_DELAY         seconds before a job whose handler threw is due again; doubled
 *                       with every failed attempt, at most one hour (5)
 *   MAX_JOBS            exit (0) after this many jobs, to be restarted fresh (0 = never)
 *   MAX_SECONDS         exit (0) after running this long (0 = never)
 *   WORKER_HANDLER      PHP file returning a callable(array $job, RedisKit\DelayQueue $queue): void;
 *                       default: print the job. A handler doing long work should call
 *                       $queue->touch($job['id']) now and then, and stop if it returns false.
 *
 * Signals: SIGTERM, SIGINT and SIGQUIT let the job being handled finish (and
 * be acked, or retried if it threw), hand the batch's jobs not started yet
 * back (retry: that counts as an attempt; hence BATCH=1 by default), and exit
 * with status 0. A SIGKILLed worker loses nothing either: its jobs come back
 * after VISIBILITY_TIMEOUT.
 *
 * Exit status: 0 after a signal, MAX_JOBS or MAX_SECONDS; 1 on bad
 * configuration. Connection errors are logged and retried, never fatal.
 */
declare(strict_types=1);

function env_str(string $name, ?string $default): ?string
{
    $v = getenv($name);
    return ($v === false || $v === '') ? $default : $v;
}

function env_num(string $name, float $default): float
{
    $v = env_str($name, null);
    if ($v === null) {
        return $default;
    }
    if (!is_numeric($v)) {
        fwrite(STDERR, "worker: $name must be a number, got '$v'\n");
        exit(1);
    }
    return (float)$v;
}

function logline(string $msg): void
{
    fwrite(STDERR, sprintf("[%s] worker %d: %s\n", date('Y-m-d H:i:s'), getmypid(), $msg));
}

$stop = false;
pcntl_async_signals(true);
foreach ([SIGTERM, SIGINT, SIGQUIT] as $sig) {
    pcntl_signal($sig, function (int $sig) use (&$stop): void {
        $stop = true;
    });
}

$options = [
    'visibility_timeout' => env_num('VISIBILITY_TIMEOUT', 30),
    'max_attempts' => (int)env_num('MAX_ATTEMPTS', 5),
    'backoff' => env_num('BACKOFF', 1),
];
if (($prefix = env_str('QUEUE_PREFIX', null)) !== null) {
    $options['prefix'] = $prefix;
}
$batch = (int)env_num('BATCH', 1);
$wait = env_num('WAIT', 2);
$retryDelay = env_num('RETRY_DELAY', 5);
$maxJobs = (int)env_num('MAX_JOBS', 0);
$maxSeconds = env_num('MAX_SECONDS', 0);

try {
    $queue = new RedisKit\DelayQueue(env_str('QUEUE_NAME', 'jobs'), env_str('REDIS_DSN', null), $options);
    if ($batch < 1 || $batch > 1000 || $wait < 0 || $retryDelay < 0) {
        throw new ValueError('BATCH must be 1..1000, WAIT and RETRY_DELAY >= 0');
    }
} catch (ValueError $e) {
    fwrite(STDERR, 'worker: bad configuration: ' . $e->getMessage() . "\n");
    exit(1);
}

$handler = function (array $job, RedisKit\DelayQueue $queue): void {
    printf("job %s (attempt %d, due at %.3f): %s\n", $job['id'], $job['attempts'] + 1, $job['due_at'], $job['payload']);
};
if (($file = env_str('WORKER_HANDLER', null)) !== null) {
    $handler = require $file;
    if (!is_callable($handler)) {
        fwrite(STDERR, "worker: $file must return a callable(array \$job, RedisKit\\DelayQueue \$queue)\n");
        exit(1);
    }
}

$started = microtime(true);
$done = 0;
logline('started on queue ' . env_str('QUEUE_NAME', 'jobs'));
while (!$stop) {
    if ($maxSeconds > 0 && microtime(true) - $started >= $maxSeconds) {
        break;
    }
    try {
        $jobs = $queue->pop($batch, $wait);
    } catch (RedisKit\Exception $e) {          // ConnectionException included
        logline('pop failed: ' . $e->getMessage());
        sleep(1);                              // returns early on a signal
        continue;
    }
    foreach ($jobs as $i => $job) {
        if ($stop) {
            // not started: give them back now rather than after the visibility timeout
            foreach (array_slice($jobs, $i) as $left) {
                try {
                    $queue->retry($left['id']);
                } catch (RedisKit\Exception $e) {
                    logline("job {$left['id']}: could not give it back (" . $e->getMessage() . '); it comes back after the visibility timeout');
                }
            }
            break;
        }
        $done++;
        try {
            $handler($job, $queue);
        } catch (Throwable $e) {
            $delay = min(3600.0, $retryDelay * 2 ** min($job['attempts'], 20));
            logline(sprintf('job %s failed (%s: %s), retry in %.1f s', $job['id'], get_class($e), $e->getMessage(), $delay));
            try {
                $queue->retry($job['id'], $delay);
            } catch (RedisKit\Exception $e) {
                logline("job {$job['id']}: could not retry (" . $e->getMessage() . '); it comes back after the visibility timeout');
            }
            continue;
        }
        try {
            if (!$queue->ack($job['id'])) {
                logline("job {$job['id']}: ack refused, another consumer has it now (the handler took longer than the visibility timeout without touch())");
            }
        } catch (RedisKit\Exception $e) {
            logline("job {$job['id']}: ack failed (" . $e->getMessage() . '); it comes back after the visibility timeout');
        }
    }
    if ($maxJobs > 0 && $done >= $maxJobs) {
        break;
    }
}
logline("stopping after $done job(s)");
exit(0);

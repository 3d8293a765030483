<?php
// The seed article's delay queue (../shared/seeds/004_*, section 2), verbatim:
// ZADD with the app server's clock as score and the payload as member, and a
// consumer that reads due jobs with ZRANGEBYSCORE and claims them with one
// ZREM each. bench/queue.php measures RedisKit\DelayQueue against it.

class DelayQueue
{
    private $redis;
    private $key = 'delay:queue';

    public function __construct(\Redis $redis)
    {
        $this->redis = $redis;
    }

    public function push(string $job, int $delaySeconds): void
    {
        $score = microtime(true) + $delaySeconds;
        $this->redis->zAdd($this->key, $score, $job);
    }

    public function consume(int $batch = 10): array
    {
        $now = microtime(true);
        // 取出 score <= 当前时间的任务
        $jobs = $this->redis->zRangeByScore(
            $this->key,
            '-inf',
            (string) $now,
            ['limit' => [0, $batch]]
        );

        $result = [];
        foreach ($jobs as $job) {
            // ZREM 返回 1 表示抢到该任务，避免多消费者重复处理
            if ($this->redis->zRem($this->key, $job) === 1) {
                $result[] = $job;
            }
        }
        return $result;
    }
}

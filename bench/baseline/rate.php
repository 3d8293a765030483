<?php
// The seed article's sliding-window limiter (004_*, section 3.2), exactly as
// written there: a phpredis pipeline (not atomic) plus a second round trip
// to roll back a refused attempt.

class SlidingWindowLimiter
{
    private $redis;

    public function __construct(\Redis $redis)
    {
        $this->redis = $redis;
    }

    public function allow(string $key, int $limit, int $window): bool
    {
        $now = microtime(true);
        $zkey = 'limit:' . $key;

        $pipe = $this->redis->multi(\Redis::PIPELINE);
        // 移除窗口外的旧请求
        $pipe->zRemRangeByScore($zkey, '-inf', (string) ($now - $window));
        // 统计当前窗口内请求数
        $pipe->zCard($zkey);
        // 记录本次请求
        $pipe->zAdd($zkey, $now, $now . ':' . mt_rand());
        // 设置过期，避免冷 key 占用内存
        $pipe->expire($zkey, $window + 1);
        $results = $pipe->exec();

        $count = $results[1];
        if ($count >= $limit) {
            // 超限，回滚刚才的 zAdd
            $this->redis->zRemRangeByScore($zkey, (string) $now, (string) $now);
            return false;
        }
        return true;
    }
}

<?php
// The seed article's leaderboard (../shared/seeds/000_*), as PHP teams write
// it today on phpredis: the baseline rediskit is measured against.
final class SeedLeaderboard
{
    public function __construct(private Redis $redis, private string $key) {}

    public function setScore(string $userId, $score): void
    {
        $this->redis->zAdd($this->key, $score, $userId);
    }

    public function rank(string $userId)
    {
        $rank = $this->redis->zRevRank($this->key, $userId);
        return $rank !== false ? $rank + 1 : 0;
    }

    public function top10(): array
    {
        return $this->redis->zRevRange($this->key, 0, 9, true);
    }

    // "around me": two round trips (rank, then the range)
    public function around(string $userId): array
    {
        $rank = $this->redis->zRevRank($this->key, $userId);
        if ($rank === false) return [];
        $start = max(0, $rank - 2);
        $end = $rank + 2;
        return $this->redis->zRevRange($this->key, $start, $end, true);
    }

    // bulk update: pipeline of single ZADDs
    public function setScores(array $users): void
    {
        $pipe = $this->redis->multi(Redis::PIPELINE);
        foreach ($users as $id => $score) {
            $pipe->zAdd($this->key, $score, $id);
        }
        $pipe->exec();
    }
}

<?php
// `make demo`: every rediskit primitive working against the redis-server in
// REDIS_URL (a throwaway one started by the Makefile unless you set it).
$url = getenv('REDIS_URL') ?: 'redis://127.0.0.1:6379';
$ns = 'demo:' . getmypid() . ':';
echo "rediskit ", phpversion('rediskit'), " against $url\n";

function section(string $title): void
{
    echo "\n== $title\n";
}

function show_entries(array $entries): string
{
    return implode('  ', array_map(fn($e) => "#{$e['rank']} {$e['member']} ({$e['score']})", $entries));
}

// ---------------------------------------------------------------- leaderboard
section('RedisLeaderboard: rankings, every read in one round trip');
$lb = new RedisKit\RedisLeaderboard($ns . 'game', $url, ['ranking' => 'competition', 'ties' => 'earliest']);
$lb->setScores(['alice' => 3200, 'bob' => 2800, 'carol' => 3100, 'dave' => 1900, 'erin' => 2500]);
$lb->incrementScore('dave', 900);          // dave reaches 2800 after bob: bob keeps the better tie
echo "top 3:      ", show_entries($lb->top(3)), "\n";
echo "around bob: ", show_entries($lb->around('bob', 1)), "\n";
printf("dave: rank %d, score %.0f, ahead of or tied with %.0f%% of the board\n", $lb->rank('dave'), $lb->score('dave'), $lb->percentile('dave'));
printf("erin offers 2400: %s (her best stays %.0f)\n", $lb->setScoreIfBetter("erin", 2400) ? "stored" : "not better", $lb->score("erin"));
$lb->clear();

$weekly = new RedisKit\RedisLeaderboard($ns . 'season', $url, ['periods' => ['daily', 'weekly']]);
$weekly->incrementScore('alice', 10);
$weekly->incrementScore('bob', 25);
echo "this week's board: ", show_entries($weekly->period('weekly')->top(2)), "\n";
$weekly->period('daily')->clear();
$weekly->period('weekly')->clear();
$weekly->clear();

section('connection layer');
$s = RedisKit\stats();
printf("this process opened %d connection(s) and sent %d commands; %d script(s) loaded on first use\n",
    $s['connections_opened'], $s['commands'], $s['scripts_loaded']);
try {
    (new RedisKit\RedisLeaderboard('x', 'redis://:not-the-password@127.0.0.1:1?timeout=0.2'))->count();
} catch (RedisKit\ConnectionException $e) {
    echo "a bad DSN fails clearly (no password in the message): ", $e->getMessage(), "\n";
}
echo "\ndemo done\n";

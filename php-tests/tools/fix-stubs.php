<?php
// Post-processes `cargo php stubs` output (read from stdin) into the stub
// file IDEs read: the real union types of $connection and $options, `final`
// where the class is final, no fake constructors on exceptions, and one
// @param/@return per name (ours, which are more precise, come first).
$src = stream_get_contents(STDIN);

$src = str_replace('mixed $connection = null', 'string|array|null $connection = null', $src);
$src = str_replace('?array $options = null', 'array $options = []', $src);
$src = preg_replace('/\n\s*\* @param mixed \$connection(?=\n)/', '', $src);
$src = preg_replace('/\n\s*\* @param array\|null \$options(?=\n)/', '', $src);

// exceptions: the constructor is \Exception's own
$src = preg_replace('/(class \w+ extends \\\\(?:RuntimeException|RedisKit\\\\\w+) \{)\n\s*public function __construct\(\) \{\}\n(\s*\})/', "$1\n$2", $src);

// final classes
$src = preg_replace_callback('/^(\s*)class (\w+)/m', function ($m) use ($src) {
    $fq = 'RedisKit\\' . $m[2];
    $final = class_exists($fq) && (new ReflectionClass($fq))->isFinal();
    return $m[1] . ($final ? 'final ' : '') . 'class ' . $m[2];
}, $src);

// docblocks: keep the first @param per variable and the first @return
$src = preg_replace_callback('#/\*\*.*?\*/#s', function ($m) {
    $seen = [];
    $out = [];
    foreach (explode("\n", $m[0]) as $line) {
        if (preg_match('/\* @param \S+ (\$\w+)/', $line, $p)) {
            if (isset($seen[$p[1]])) continue;
            $seen[$p[1]] = true;
        } elseif (preg_match('/\* @return /', $line)) {
            if (isset($seen['@return'])) continue;
            $seen['@return'] = true;
        }
        $out[] = $line;
    }
    // drop a dangling empty " *" line before the end
    $text = implode("\n", $out);
    return preg_replace('/\n\s*\*\n(\s*\*\/)$/', "\n$1", $text);
}, $src);

echo rtrim($src), "\n";

--TEST--
docs/symfony.md's configuration reference is the bundle's config tree: every key of the rediskit: tree has a row and every row is a key, each row's default is the tree's (or "required" / none where the tree has none), and the page's complete example is accepted by the tree
--INI--
include_path=.:/usr/share/php
extension=ctype
--FILE--
<?php
require __DIR__ . '/_symfony.inc';
require __DIR__ . '/_docs.inc';
require_once 'Symfony/Component/Yaml/autoload.php';
use RedisKit\Symfony\DependencyInjection\Configuration;
use Symfony\Component\Config\Definition\ArrayNode;
use Symfony\Component\Config\Definition\BaseNode;
use Symfony\Component\Config\Definition\PrototypedArrayNode;
use Symfony\Component\Config\Definition\Processor;
use Symfony\Component\Yaml\Yaml;

$doc = doc_root() . '/docs/symfony.md';

/** Leaf path => [has default, default, required] of the tree under $node. */
function leaves(BaseNode $node, string $path = ''): array
{
    $out = [];
    if ($node instanceof PrototypedArrayNode) {
        return leaves($node->getPrototype(), $path . '.<name>');
    }
    if ($node instanceof ArrayNode) {
        foreach ($node->getChildren() as $name => $child) {
            $out += leaves($child, ltrim($path . '.' . $name, '.'));
        }
        return $out;
    }
    return [$path => [$node->hasDefaultValue(), $node->hasDefaultValue() ? $node->getDefaultValue() : null, $node->isRequired()]];
}

$tree = leaves((new Configuration())->getConfigTreeBuilder()->buildTree());
$rows = [];
foreach (doc_table($doc, 'Configuration reference') as $cells) {
    $rows[doc_code($cells[0])] = $cells[2];
}
foreach ($tree as $path => [$has, $default, $required]) {
    if (!array_key_exists($path, $rows)) {
        echo "not in the reference: $path\n";
        continue;
    }
    $cell = $rows[$path];
    if ($has) {
        $documented = doc_literal(doc_code($cell));
        if ($documented !== $default && !(is_numeric($documented) && is_numeric($default) && $documented == $default)) {
            printf("%s: the reference says %s, the tree's default is %s\n", $path, $cell, var_export($default, true));
        }
    } elseif ($required ? $cell !== 'required' : !in_array($cell, ['—', '-', ''], true)) {
        printf("%s: the reference says %s, the tree has no default%s\n", $path, $cell, $required ? ' (required)' : '');
    }
}
foreach (array_diff_key($rows, $tree) as $path => $_) {
    echo "in the reference, not in the tree: $path\n";
}
printf("%d keys\n", count($tree) === count($rows) ? count($tree) : -1);

$examples = doc_marked($doc, 'symfony-config-example');
foreach ($examples as $b) {
    $config = Yaml::parse($b['code']);
    $processed = (new Processor())->processConfiguration(new Configuration(), [$config['rediskit']]);
    printf("the complete example (line %d) is accepted: %s rate limiters, lock ttl %s\n", $b['line'], count($processed['rate_limiter']), $processed['lock']['ttl']);
}
echo count($examples) > 0 ? "done\n" : "no complete example\n";
?>
--EXPECTF--
%d keys
the complete example (line %d) is accepted: 4 rate limiters, lock ttl 300
done

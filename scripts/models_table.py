#!/usr/bin/env python3
"""The table of README.md's "Variants and shipped models": one row per variant Poppy knows, with
its shipped model (models/shipped.yaml), that model's training budget and measured strength (the
`budget` and `strength` rows of the first table of its card, models/VARIANT/README.md). The table
is generated, so that it cannot drift from the cards:

    scripts/models_table.py                 # rewrites the table in README.md
    scripts/models_table.py --check         # exit 1, with a diff, if README.md's table is stale
    scripts/models_table.py --poppy PATH    # the poppy command that lists the variants (default build/poppy)

The table lies between the README's lines `<!-- models table: scripts/models_table.py -->` and
`<!-- end of models table -->`; everything else in the file is left as it is.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = '<!-- models table: scripts/models_table.py -->'
END = '<!-- end of models table -->'


def fail(message):
    sys.exit(f'models_table: {message}')


def variants(poppy):
    """(name, board) of every variant `poppy variants` lists, four-player boards marked."""
    try:
        out = subprocess.run([poppy, 'variants'], check=True, capture_output=True, text=True, cwd=ROOT).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f'cannot list the variants with {poppy}: {e}')
    rows = []
    for line in out.splitlines():
        words = line.split()
        if len(words) < 3 or not re.fullmatch(r'\d+x\d+', words[1]):
            continue
        board = words[1] + (', four players' if 'four players' in line else '')
        rows.append((words[0], board))
    if not rows:
        fail(f'{poppy} variants listed no variant')
    return rows


def shipped_models():
    """variant -> model path (relative to models/), from models/shipped.yaml's `name: path` lines."""
    path = os.path.join(ROOT, 'models', 'shipped.yaml')
    models = {}
    for number, line in enumerate(open(path, encoding='utf-8'), 1):
        text = line.split('#', 1)[0].strip()
        if not text:
            continue
        m = re.fullmatch(r'([A-Za-z0-9_-]+):\s*(\S+)', text)
        if not m:
            fail(f'{path}: line {number}: expected "VARIANT: FILE", got {line.strip()!r}')
        models[m.group(1)] = m.group(2)
    return models


def card_rows(card, model_file):
    """The first table of a model card as {first cell: second cell}; the card must be the model's."""
    try:
        text = open(card, encoding='utf-8').read()
    except OSError as e:
        fail(f'{card}: {e}')
    title = text.splitlines()[0] if text else ''
    if f'`{model_file}`' not in title:
        fail(f'{card}: its title ({title!r}) does not name {model_file}, the shipped model')
    rows = {}
    in_table = False
    for line in text.splitlines():
        if line.startswith('|'):
            in_table = True
            cells = [c.strip() for c in line.strip().strip('|').split('|', 1)]
            if len(cells) == 2:
                rows[cells[0]] = cells[1]
        elif in_table:
            break
    for key in ('budget', 'strength'):
        if not rows.get(key):
            fail(f'{card}: its first table has no "{key}" row')
    return rows


def table(poppy):
    models = shipped_models()
    known = variants(poppy)
    names = {name for name, _ in known}
    for name in models:
        if name not in names:
            fail(f'models/shipped.yaml names {name}, which `poppy variants` does not list')
    lines = ['| variant | board | shipped model | training budget | measured strength |',
             '|---|---|---|---|---|']
    # The variants with a model first, in shipped.yaml's order; then the others by name.
    order = [n for n in models] + sorted(n for n in names if n not in models)
    boards = dict(known)
    for name in order:
        if name in models:
            path = models[name]
            folder = os.path.dirname(path)
            model_file = os.path.basename(path)
            rows = card_rows(os.path.join(ROOT, 'models', folder, 'README.md'), model_file)
            stem = os.path.splitext(model_file)[0]
            lines.append(f'| `{name}` | {boards[name]} | [`{stem}`](models/{folder}/README.md) | '
                         f'{rows["budget"]} | {rows["strength"]} |')
        else:
            lines.append(f'| `{name}` | {boards[name]} | none yet | | |')
    return '\n'.join(lines) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--poppy', default=os.path.join(ROOT, 'build', 'poppy'))
    parser.add_argument('--check', action='store_true', help='only compare; exit 1 if README.md is stale')
    args = parser.parse_args()
    readme = os.path.join(ROOT, 'README.md')
    text = open(readme, encoding='utf-8').read()
    if BEGIN not in text or END not in text:
        fail(f'{readme} has no "{BEGIN}" ... "{END}" section')
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    new = '\n' + table(args.poppy)
    if args.check:
        if old != new:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), 'README.md', 'generated'))
            print('models_table: README.md\'s table is stale: run scripts/models_table.py', file=sys.stderr)
            return 1
        print('models_table: README.md\'s table agrees with the model cards')
        return 0
    if old == new:
        print('models_table: README.md is current')
        return 0
    # Written atomically: a crash leaves the old README, never half of one.
    fd, tmp = tempfile.mkstemp(dir=ROOT, prefix='.README.md.')
    with os.fdopen(fd, 'w', encoding='utf-8') as out:
        out.write(head + BEGIN + new + END + tail)
    os.chmod(tmp, os.stat(readme).st_mode & 0o777)
    os.replace(tmp, readme)
    print('models_table: README.md\'s table rewritten from the model cards')
    return 0


if __name__ == '__main__':
    sys.exit(main())

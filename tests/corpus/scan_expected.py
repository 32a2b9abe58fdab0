#!/usr/bin/env python3
# Drafts tests/corpus/launch/<file>.expected: the lines of each input that
# plainly set an NCCL/RCCL/HCCL/TORCH_NCCL variable, found by regular
# expressions that share nothing with the C++ readers. The drafts were then
# reviewed by hand against the files (echo output, comments and $NAME reads
# are not settings). Usage: scan_expected.py FILE... > TSV
import re, sys, os
NAME = r'(?:NCCL|RCCL|HCCL|TORCH_NCCL|TORCH_HCCL)_[A-Z0-9_]+'
pats = [
  re.compile(r'(?<![\w$\{])(' + NAME + r')=(?!=)'),          # NAME=value (shell, -x, --export, env)
  re.compile(r'^\s*-?\s*"?(' + NAME + r')"?\s*:\s*\S'),       # yaml/json map key with a value
  re.compile(r'^\s*-?\s*"?(' + NAME + r')"?\s*:\s*$'),        # yaml key, value on next line / null
  re.compile(r'(?i:name):\s*"?(' + NAME + r')"?\s*$'),        # k8s env item name (AWS: Name:)
  re.compile(r'\$\{(' + NAME + r'):?=[^}]*\}'),                # : "${NAME:=default}"
  re.compile(r'\bexport\s+.*?\b(' + NAME + r')=(?!=)'),       # export A=1 B=2 (second and later)
  re.compile(r'(?:-x|--export(?:=|\s+)|-e|--env)\s+(' + NAME + r')\b(?!=)'),  # -x NAME (pass through)
  re.compile(r'"(' + NAME + r')"\s*:'),                        # json "NAME": value
]
CENV = re.compile(r'--container-env[= ]([A-Za-z0-9_,]+)')
def scan(path):
    out = []
    for i, line in enumerate(open(path, encoding='utf-8', errors='replace'), 1):
        s = line.strip()
        # #SBATCH --export=... sets the batch job's environment: not a comment to Slurm
        if (s.startswith('#') and not (s.startswith('#SBATCH') and '--export' in s)) or s.startswith('//'): continue
        code = re.sub(r'\s#\s.*$', '', line)
        if re.match(r'\s*([A-Z_]+=\S*\s+)*(echo|printf)\b', code): continue
        found = set()
        for p in pats:
            for m in p.finditer(code):
                found.add(m.group(1))
        for m in CENV.finditer(code):  # pyxis: names handed on to the container
            found.update(x for x in m.group(1).split(',') if re.fullmatch(NAME, x))
        for n in sorted(found): out.append((i, n))
    return out
for f in sys.argv[1:]:
    for i, n in scan(f): print(f'{os.path.basename(f)}\t{i}\t{n}')

"""Writes each file a FEMU guest printed base64 between "BEGIN-FILE NAME" and "END-FILE NAME"
lines of its serial log into a directory. Usage: python3 take-files.py LOG DIR"""
import base64
import re
import sys

log, out = sys.argv[1], sys.argv[2]
text = open(log, 'rb').read().decode('latin-1').replace('\r', '')
for m in re.finditer(r'BEGIN-FILE (\S+)\n(.*?)END-FILE \1', text, re.S):
    with open(f'{out}/{m.group(1)}', 'wb') as f:
        f.write(base64.b64decode(m.group(2)))

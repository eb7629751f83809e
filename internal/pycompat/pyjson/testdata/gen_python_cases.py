import json
cases = ['', '   ', 'hello', '[1, 2]', '{"a": 1', '{"a": 1,}', '{"a" 1}', '{a: 1}', '{"a": }', '{"a": 1 "b": 2}',
 '"abc', '"a\\qb"', '"\\u12"', '"\\u12x4"', '"a\nb"', '{"a": [1, 2', '01', '-', '1.', '{"a": 1}}', 'nul', '\n\n  x',
 '{"k": "v"}\n junk', '[1,]', '{"a":"\\ud800\\u12g4"}', '"\\ud83d\\ude00"', '\ufeff{}', '{"é": tru}', '[1 2]', '{"a":1, }']
out=[]
for c in cases:
    try:
        v=json.loads(c); out.append((c, None, repr(v)))
    except json.JSONDecodeError as e:
        out.append((c, str(e), None))
print(json.dumps(out, ensure_ascii=False))
reprs = ['hot', "it's", 'say "hi"', 'both \' and "', 'tab\there\n', '\x00\x1f\x7f', 'é中😀', '\u200b\u2028\xa0\xad', 'back\\slash']
print(json.dumps([(s, repr(s)) for s in reprs], ensure_ascii=False))
floats = [25.0, 0.1, 1e16, 1e15, 123456789012345678.0, 0.0001, 0.00001, 1.5e-7, -0.0, 2.5, 1e22, 3.14159, 100.0, 1.7976931348623157e308, 5e-324]
print(json.dumps([(repr(f), f) for f in floats]))
vals = ['{"a": 1, "b": [true, null, 2.50, "x"], "c": {"d": -0}}', '[1e5, 1E-7, 10, -3.0]', '{"location": "成都", "weather": {"condition": "sunny", "temperature": 22}}']
print(json.dumps([(v, repr(json.loads(v)), json.dumps(json.loads(v), ensure_ascii=False), json.dumps(json.loads(v), sort_keys=True)) for v in vals], ensure_ascii=False))

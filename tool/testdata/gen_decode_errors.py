import json
def msg(json_str):
    parsed=None
    try:
        parsed=json.loads(json_str)
        error_message = f"Error: Your argument string is decoded into a {type(parsed)} object, but a dict object is expected!"
    except json.JSONDecodeError as e:
        error_message = f"Error: When decoding your tool arguments from JSON format to a Python dictionary, a JSONDecodeError was raised with message: {str(e)}."
    if len(json_str) > 200:
        error_json_str = json_str[:100] + "[TRUNCATE]" + json_str[-100:]
        ellipsis_hint = "(Because the JSON string is too long, a truncated label \"[TRUNCATE]\" is used here to indicate the truncation)"
    else:
        error_json_str = json_str; ellipsis_hint = ""
    return f"""<system-reminder>{error_message}

Your argument string is decoded by the following code snippet{ellipsis_hint}:
```python
import json

your_tool_arguments = {repr(error_json_str)}
json.loads(your_tool_arguments)
```

**You should recorrect the arguments in JSON format.**</system-reminder>"""
cases = ["[1, 2]", "[" + "1, "*100 + "1]", "hello", ("it's \"q\" 中文\n" * 20), "42", '"{\\"a\\": 1}"', "null", "true", "3.5"]
print(json.dumps([[c, msg(c)] for c in cases], ensure_ascii=False, indent=0))

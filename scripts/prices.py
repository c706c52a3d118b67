#!/usr/bin/env python3
"""Writes crates/runs/data/prices.json: a dated snapshot of LiteLLM's chat-model prices.

LiteLLM publishes model_prices_and_context_window.json (MIT License); its wheel on PyPI ships a
copy as litellm/model_prices_and_context_window_backup.json. This script downloads that wheel
with pip (no dependencies), reads the file out of it, keeps the chat models (mode == "chat") of
the providers execbench can reach (its presets, and the first-party providers OpenRouter routes
to) that have an explicit price, and writes a compact JSON file, one model a line, sorted by
provider then model, so that a rerun with the same version and date gives the same bytes.

Usage: scripts/prices.sh [LITELLM_VERSION]   (PRICES_DATE=YYYY-MM-DD overrides today's date)
"""

import datetime
import json
import os
import subprocess
import sys
import tempfile
import zipfile

DEFAULT_VERSION = "1.110.2"
MEMBER = "litellm/model_prices_and_context_window_backup.json"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates", "runs", "data", "prices.json")

# LiteLLM's `litellm_provider` names kept: the presets' providers (openai, anthropic, gemini,
# deepseek, deepinfra, together_ai, dashscope for qwen, azure) and those OpenRouter's model ids
# name as vendors (x-ai, mistralai, moonshotai, z-ai, minimax), whose first-party price OpenRouter
# passes on.
PROVIDERS = {
    "openai",
    "anthropic",
    "gemini",
    "deepseek",
    "deepinfra",
    "together_ai",
    "dashscope",
    "azure",
    "xai",
    "mistral",
    "moonshot",
    "zai",
    "minimax",
}


def number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def flat_prices(entry):
    """(input, output, cached_input, reasoning) per token, or None without an explicit price.

    Tiered prices (DashScope: by prompt length) give their first tier, the shortest prompts'.
    """
    source = entry
    if number(entry.get("input_cost_per_token")) is None or number(entry.get("output_cost_per_token")) is None:
        tiers = entry.get("tiered_pricing")
        if not isinstance(tiers, list) or not tiers:
            return None
        tiers = [t for t in tiers if isinstance(t, dict) and isinstance(t.get("range"), list) and t["range"]]
        if not tiers:
            return None
        source = min(tiers, key=lambda t: t["range"][0])
        if number(source.get("input_cost_per_token")) is None or number(source.get("output_cost_per_token")) is None:
            return None
    return (
        float(source["input_cost_per_token"]),
        float(source["output_cost_per_token"]),
        number(source.get("cache_read_input_token_cost")),
        number(source.get("output_cost_per_reasoning_token")),
    )


def extract(table):
    models = []
    for key, entry in table.items():
        if key == "sample_spec" or not isinstance(entry, dict) or entry.get("mode") != "chat":
            continue
        provider = entry.get("litellm_provider")
        if provider not in PROVIDERS:
            continue
        prices = flat_prices(entry)
        if prices is None:
            continue
        input_, output, cached, reasoning = prices
        row = {"model": key, "provider": provider, "input": input_, "output": output}
        if cached is not None:
            row["cached_input"] = float(cached)
        if reasoning is not None:
            row["reasoning"] = float(reasoning)
        max_output = number(entry.get("max_output_tokens"))
        if max_output is not None and max_output > 0:
            row["max_output"] = int(max_output)
        models.append(row)
    models.sort(key=lambda row: (row["provider"], row["model"]))
    return models


def main():
    version = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_VERSION
    date = os.environ.get("PRICES_DATE") or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", f"litellm=={version}", "-d", tmp],
            check=True,
        )
        wheels = [name for name in os.listdir(tmp) if name.endswith(".whl")]
        if len(wheels) != 1:
            sys.exit(f"expected one litellm wheel in {tmp}, found {wheels}")
        with zipfile.ZipFile(os.path.join(tmp, wheels[0])) as wheel:
            table = json.loads(wheel.read(MEMBER))
    models = extract(table)
    if not models:
        sys.exit("no chat model with a price found: has LiteLLM's format changed?")
    source = f"LiteLLM model_prices_and_context_window.json (litellm {version} on PyPI), MIT License"
    lines = [json.dumps(row, separators=(",", ":"), ensure_ascii=False) for row in models]
    head = json.dumps({"source": source, "date": date}, separators=(",", ":"), ensure_ascii=False)[:-1]
    text = head + ',"models":[\n' + ",\n".join(lines) + "\n]}\n"
    json.loads(text)  # the file must be valid JSON
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as out:
        out.write(text)
    counts = {}
    for row in models:
        counts[row["provider"]] = counts.get(row["provider"], 0) + 1
    print(f"{OUT}: {len(models)} models, {len(text.encode())} bytes, {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Poppy's model files in Python: read one into a PyTorch module, export it for other programs.

A model file (nn/model_header.h) is a line "POPPYNET 2", one JSON line (variant, rules
fingerprint, encoder version, the architecture, training step, payload size, CRC-32), then
LibTorch's archive of the weights, which torch.jit.load reads. The network is rebuilt here with
the same layers and names as nn/network.cpp: a residual tower, a policy head (dense, or spatial
for the big boards) giving logits over the encoder's policy indices, and a value head giving
logits over (win, draw, loss) for the side to move (for four players: each player's win, then
the draw). Its input is the encoder's planes, [batch, planes, height, width] (docs/DESIGN.md).

    python3 scripts/poppy_model.py info MODEL
    python3 scripts/poppy_model.py export MODEL OUT --format onnx|torchscript
    python3 scripts/poppy_model.py check EXPORTED --model MODEL --cases CASES.json

`poppy model export` runs the second; the tests run the third against outputs that Poppy's own
LibTorch network computed (CASES.json: {"planes": [...], "policy": [...], "value": [...]}).
Needs PyTorch (Debian: python3-torch); ONNX export also python3-onnx, which checks the file.
"""
import argparse
import io
import json
import sys
import zlib

MAGIC = b"POPPYNET"
FORMATS = (1, 2)


class ModelFileError(Exception):
    """A file that is not a Poppy model, or a damaged one: the message names the file."""


def read_model_file(path):
    """Returns (header dict, weights bytes), the checksum checked."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ModelFileError(f"model {path}: cannot read: {e.strerror}") from None
    line1 = data.find(b"\n")
    if line1 < 0 or not data.startswith(MAGIC):
        raise ModelFileError(f"model {path}: not a Poppy model file")
    magic = data[:line1].decode("ascii", "replace")
    version = magic[len("POPPYNET "):]
    if version not in tuple(str(v) for v in FORMATS):
        raise ModelFileError(f"model {path}: unsupported model format '{magic[:40]}' (this reader knows 1 and 2)")
    line2 = data.find(b"\n", line1 + 1)
    if line2 < 0:
        raise ModelFileError(f"model {path}: truncated header")
    try:
        header = json.loads(data[line1 + 1:line2])
    except ValueError as e:
        raise ModelFileError(f"model {path}: bad header: {e}") from None
    payload = data[line2 + 1:]
    if len(payload) != header.get("payload_bytes"):
        raise ModelFileError(f"model {path}: truncated or padded: header promises {header.get('payload_bytes')} bytes "
                             f"of weights, file has {len(payload)}")
    # Version 2's checksum covers the header as nlohmann::json writes it (keys sorted, no spaces),
    # without its crc32 field, then the weights; version 1's the weights only.
    if version == "1":
        crc = zlib.crc32(payload)
    else:
        rest = {k: v for k, v in header.items() if k != "crc32"}
        text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        crc = zlib.crc32(text + payload)
    if crc != header.get("crc32"):
        raise ModelFileError(f"model {path}: checksum mismatch: the file is corrupt")
    return header, payload


def build_network(header):
    """The PyTorch module of nn/network.cpp for this header's architecture, untrained."""
    import torch
    from torch import nn

    def conv(cin, cout, kernel):
        return nn.Conv2d(cin, cout, kernel, padding=kernel // 2, bias=False)

    class ResidualBlock(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv1 = conv(channels, channels, 3)
            self.bn1 = nn.BatchNorm2d(channels)
            self.conv2 = conv(channels, channels, 3)
            self.bn2 = nn.BatchNorm2d(channels)

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return torch.relu(x + y)

    # The auxiliary heads of a header with "auxiliary_heads" (reply policy, plies left) are
    # training's only: they are left out here, and load() passes their weights by.
    class PolicyValueNet(nn.Module):
        def __init__(self, h):
            super().__init__()
            planes, height, width = h["planes"], h["height"], h["width"]
            channels, area = h["channels"], h["height"] * h["width"]
            self.spatial = h.get("policy_planes", 0) > 0
            self.input_conv = conv(planes, channels, 3)
            self.input_bn = nn.BatchNorm2d(channels)
            self.tower = nn.Sequential(*[ResidualBlock(channels) for _ in range(h["blocks"])])
            if self.spatial:
                self.policy_conv = conv(channels, channels, 1)
                self.policy_bn = nn.BatchNorm2d(channels)
                self.policy_out = conv(channels, h["policy_planes"], 1)
                self.policy_out_bn = nn.BatchNorm2d(h["policy_planes"])
            else:
                self.policy_conv = conv(channels, 2, 1)
                self.policy_bn = nn.BatchNorm2d(2)
                self.policy_fc = nn.Linear(2 * area, h["policy_size"])
            self.value_conv = conv(channels, 1, 1)
            self.value_bn = nn.BatchNorm2d(1)
            self.value_fc1 = nn.Linear(area, h["value_hidden"])
            self.value_fc2 = nn.Linear(h["value_hidden"], h.get("value_outputs", 3))

        def forward(self, x):
            x = torch.relu(self.input_bn(self.input_conv(x)))
            x = self.tower(x)
            p = torch.relu(self.policy_bn(self.policy_conv(x)))
            if self.spatial:
                p = self.policy_out_bn(self.policy_out(p)).flatten(1)
            else:
                p = self.policy_fc(p.flatten(1))
            v = torch.relu(self.value_bn(self.value_conv(x))).flatten(1)
            v = self.value_fc2(torch.relu(self.value_fc1(v)))
            return p, v

    return PolicyValueNet(header)


def load(path):
    """(header, the trained network in eval mode, on the CPU) of a Poppy model file."""
    import torch
    header, payload = read_model_file(path)
    net = build_network(header)
    try:
        archive = torch.jit.load(io.BytesIO(payload), map_location="cpu")
    except Exception as e:  # torch raises RuntimeError subclasses with long C++ traces
        raise ModelFileError(f"model {path}: its weights do not load: {str(e).splitlines()[0]}") from None
    weights = dict(archive.named_parameters())
    weights.update(dict(archive.named_buffers()))
    want = net.state_dict()
    missing = sorted(set(want) - set(weights))
    if missing:
        raise ModelFileError(f"model {path}: the weights lack {', '.join(missing[:4])}")
    for name, tensor in want.items():
        if tuple(weights[name].shape) != tuple(tensor.shape):
            raise ModelFileError(f"model {path}: {name} is {tuple(weights[name].shape)}, the header's network wants "
                                 f"{tuple(tensor.shape)}")
    net.load_state_dict({name: weights[name] for name in want})
    net.eval()
    return header, net


def export(model_path, out_path, fmt):
    """Writes the network as TorchScript (torch.jit) or ONNX (opset 13): input "planes"
    [batch, planes, height, width] float32, outputs "policy_logits" and "value_logits", the batch
    dimension free. Returns the header."""
    import torch
    header, net = load(model_path)
    example = torch.zeros(1, header["planes"], header["height"], header["width"])
    if fmt == "torchscript":
        with torch.no_grad():
            traced = torch.jit.trace(net, example)
        traced.save(out_path)
    elif fmt == "onnx":
        import onnx  # to check what torch wrote
        torch.onnx.export(net, example, out_path, input_names=["planes"],
                          output_names=["policy_logits", "value_logits"],
                          dynamic_axes={"planes": {0: "batch"}, "policy_logits": {0: "batch"},
                                        "value_logits": {0: "batch"}},
                          opset_version=13)
        onnx.checker.check_model(onnx.load(out_path))
    else:
        raise ValueError(f"unknown format {fmt} (onnx or torchscript)")
    return header


def check(exported, model_path, cases_path, tolerance):
    """Compares the exported network's outputs (TorchScript: run; ONNX: checked, then the network
    read from the model file is run) with Poppy's on the cases. Returns the largest difference."""
    import torch
    with open(cases_path) as f:
        cases = json.load(f)
    header, net = load(model_path)
    planes = torch.tensor(cases["planes"], dtype=torch.float32).reshape(
        -1, header["planes"], header["height"], header["width"])
    if exported.endswith(".onnx"):
        import onnx
        graph = onnx.load(exported)
        onnx.checker.check_model(graph)
        names = [o.name for o in graph.graph.output]
        if names != ["policy_logits", "value_logits"]:
            raise ModelFileError(f"{exported}: outputs {names}, not policy_logits and value_logits")
        run = net
    else:
        run = torch.jit.load(exported, map_location="cpu")
    with torch.no_grad():
        policy, value = run(planes)
    worst = 0.0
    for name, got in (("policy", policy), ("value", value)):
        want = torch.tensor(cases[name], dtype=torch.float32).reshape(got.shape)
        worst = max(worst, float((got - want).abs().max()))
    if worst > tolerance:
        raise ModelFileError(f"{exported}: outputs differ from Poppy's by {worst:.3g} (tolerance {tolerance})")
    return worst


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="the model file's header")
    info.add_argument("model")
    ex = sub.add_parser("export", help="write the network as TorchScript or ONNX")
    ex.add_argument("model")
    ex.add_argument("out")
    ex.add_argument("--format", choices=["onnx", "torchscript"], required=True)
    ch = sub.add_parser("check", help="compare an exported network's outputs with Poppy's")
    ch.add_argument("exported")
    ch.add_argument("--model", required=True)
    ch.add_argument("--cases", required=True)
    ch.add_argument("--tolerance", type=float, default=1e-4)
    a = parser.parse_args(argv)
    try:
        if a.command == "info":
            header, _ = read_model_file(a.model)
            print(json.dumps(header, sort_keys=True))
        elif a.command == "export":
            header = export(a.model, a.out, a.format)
            print(f"wrote {a.out}: {a.format}, {header['variant']} ({header['blocks']} blocks x {header['channels']} "
                  f"channels), input planes [batch, {header['planes']}, {header['height']}, {header['width']}], "
                  f"outputs policy_logits [batch, {header['policy_size']}] and value_logits "
                  f"[batch, {header.get('value_outputs', 3)}]")
        else:
            worst = check(a.exported, a.model, a.cases, a.tolerance)
            print(f"{a.exported}: matches Poppy's outputs (largest difference {worst:.3g})")
    except ModelFileError as e:
        print(f"poppy_model: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"poppy_model: error: {e.name} is not installed (Debian: python3-torch, python3-onnx; "
              "scripts/setup.sh installs them)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

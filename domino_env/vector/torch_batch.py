"""What the torch batched engines share: devices, seeded deals, action checks and legal sampling.

The torch engines (``vector/line_torch.py``, ``vector/texas42_torch.py``) keep every game's state
in tensors on one device and return ``vector.batch.Batch`` records whose fields are tensors on that
device, so a policy on the same device never copies observations to the host. Only the checks that
must report a bad input (an illegal action, a malformed deal) read back from the device, and the
engines let a trusted caller (the trainer, whose actions come from the mask) switch them off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import torch

TorchDealer = Callable[[np.ndarray], object]
"""Given the ids of the games starting a round or hand (a host array), return their deals: ``(k, T)``
integer permutations of the tile ids (numpy or torch), as ``vector.line.Dealer`` does."""


@contextmanager
def one_thread() -> Iterator[None]:
    """torch on one CPU thread for the small batches of a lockstep evaluation (a few
    hundred rows): there its thread pool only costs, ten times over on a busy 2-core machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def resolve_device(device: str | torch.device | None) -> torch.device:
    """``device`` as a ``torch.device`` (``None``: the CPU); an unknown or absent one is a ``ValueError``."""
    try:
        resolved = torch.device("cpu" if device is None else device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"device must be a torch device such as 'cpu' or 'cuda', got {device!r}") from error
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but torch sees no CUDA device here; use 'cpu'")
    return resolved


def seeded_generator(seed: int | None, device: torch.device) -> torch.Generator:
    """A generator on ``device``: ``seed`` makes every deal reproducible, ``None`` draws fresh entropy."""
    generator = torch.Generator(device=device)
    if seed is None:
        generator.seed()
    else:
        generator.manual_seed(int(seed))
    return generator


def integer_tensor(values: object, what: str, shape: tuple[int, ...], device: torch.device) -> torch.Tensor:
    """``values`` (a tensor or array-like of integers) as an int64 tensor of ``shape`` on ``device``,
    or a ``ValueError`` naming ``what`` was wrong. Floats, bools and strings are refused, not cast."""
    if isinstance(values, torch.Tensor):
        if values.dtype.is_floating_point or values.dtype.is_complex or values.dtype == torch.bool:
            raise ValueError(f"{what} must be an integer tensor, got dtype {values.dtype}")
        tensor = values
    else:
        array = np.asarray(values)
        if array.dtype.kind not in "iu":
            raise ValueError(f"{what} must be an integer array, got dtype {array.dtype}")
        tensor = torch.from_numpy(np.ascontiguousarray(array, dtype=np.int64))
    if tuple(tensor.shape) != shape:
        raise ValueError(f"{what} must have shape {shape}, got {tuple(tensor.shape)}")
    return tensor.to(device=device, dtype=torch.int64)


def shuffled_deals(num_games: int, num_tiles: int, generator: torch.Generator) -> torch.Tensor:
    """``(num_games, num_tiles)`` uniformly random permutations drawn on the generator's device."""
    keys = torch.rand((num_games, num_tiles), generator=generator, device=generator.device)
    return keys.argsort(dim=1)


def permutations(deals: object, num_games: int, num_tiles: int, device: torch.device) -> torch.Tensor:
    """``deals`` checked as ``num_games`` permutations of ``0..num_tiles-1`` (int64 on ``device``);
    a ``ValueError`` names the first bad row."""
    deals = integer_tensor(deals, "deals", (num_games, num_tiles), device)
    bad = (deals.sort(dim=1).values != torch.arange(num_tiles, device=device)).any(dim=1)
    if bool(bad.any()):
        row = int(bad.nonzero()[0, 0])
        raise ValueError(
            f"deals must be permutations of the tile ids 0..{num_tiles - 1} (each exactly once); "
            f"row {row} is {deals[row].tolist()}"
        )
    return deals


def deal_rows(
    games: torch.Tensor,
    given: object,
    dealer: TorchDealer | None,
    generator: torch.Generator,
    num_tiles: int,
) -> torch.Tensor:
    """Deals for the ``games`` starting a round or hand: ``given`` (a ``reset``'s), else the
    ``dealer``'s (both checked), else a seeded shuffle on the device, valid by construction."""
    if given is None and dealer is None:
        return shuffled_deals(games.numel(), num_tiles, generator)
    rows = dealer(games.cpu().numpy()) if given is None else given
    return permutations(rows, games.numel(), num_tiles, generator.device)


def refuse_illegal(mask: torch.Tensor, actions: torch.Tensor, what: str = "action") -> None:
    """Raise ``ValueError`` naming the first game whose action is outside ``0..A-1`` or not legal there,
    with that game's legal actions. One host read of a boolean: the cost of trusting no caller."""
    num_actions = mask.shape[1]
    in_range = (actions >= 0) & (actions < num_actions)
    legal = in_range & mask.gather(1, actions.clamp(0, num_actions - 1)[:, None])[:, 0]
    if bool(legal.all()):
        return
    game = int((~legal).nonzero()[0, 0])
    raise ValueError(
        f"illegal {what} {int(actions[game])} in game {game}; legal there: "
        f"{mask[game].nonzero()[:, 0].tolist()}"
    )


def sample_legal(mask: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One uniformly random legal action per row of a ``(B, A)`` bool mask (every row non-empty),
    on the mask's device: the legal action with the largest uniform key."""
    keys = torch.rand(mask.shape, generator=generator, device=mask.device)
    return keys.masked_fill_(~mask, -1.0).argmax(dim=1)


_M1, _M2, _M4, _H01 = 0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x0101010101010101


def popcount(words: torch.Tensor) -> torch.Tensor:
    """Set bits per element of an int64 tensor (all 64 bits, the sign bit included), as int64.

    torch has no ``bitwise_count``; this is the SWAR count in a few whole-tensor steps. Arithmetic
    right shifts copy the sign bit in, but every mask below clears the bits they would fill."""
    x = words - ((words >> 1) & _M1)
    x = (x & _M2) + ((x >> 2) & _M2)
    x = (x + (x >> 4)) & _M4
    return ((x * _H01) >> 56) & 0x7F


def hidden_hands(hand_tiles: torch.Tensor, seat: torch.Tensor) -> torch.Tensor:
    """``vector.batch.hidden_hands`` for a torch engine: from its ``hand_tiles`` ``(B, P, T)`` bool, the
    hands of relative seats ``1 .. P-1`` of each game's acting ``seat``, ``(B, (P-1) * T)`` float32."""
    num_envs, players, tiles = hand_tiles.shape
    others = (seat[:, None] + torch.arange(1, players, device=seat.device)) % players
    rows = hand_tiles.gather(1, others[:, :, None].expand(-1, -1, tiles))
    return rows.reshape(num_envs, -1).to(torch.float32)

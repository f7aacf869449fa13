"""Board symmetries and the augmentation that trains on them (numpy only).

A symmetry maps a batch of [..., H, W, C] planes to its image and every action to
the action at the image of its cells. Games build theirs with `board_symmetries`;
the input pipeline maps each sampled transition through one of them at random
(`augment`, or `PermutationAugment`, which gives the same batches faster).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = [
    "DIHEDRAL",
    "HALF_TURN",
    "MIRROR",
    "PermutationAugment",
    "Symmetry",
    "augment",
    "board_symmetries",
    "make_augmenter",
]

Planes = Callable[[np.ndarray], np.ndarray]


class Symmetry:
    """One symmetry of a board: a transform of [..., H, W, C] planes and of actions.

    Attributes:
      planes: maps a batch of planes to its image.
      action_map: int array; the image of action a is action_map[a].
    """

    def __init__(self, planes: Planes, action_map: np.ndarray):
        self.planes = planes
        self.action_map = np.asarray(action_map, np.int64)
        self.inverse_map = np.argsort(self.action_map)

    def apply(
        self, batch: dict[str, np.ndarray], rows: np.ndarray, point_columns: Sequence[str] = ()
    ) -> None:
        """Replaces rows of a sampled batch by their images, in place.

        `point_columns` hold one value per cell of the planes ([B, H * W], row by row):
        their values move with the cells.
        """
        for key in point_columns:
            values = batch[key][rows]
            cells = values.reshape(len(rows), *batch["obs"].shape[1:3], 1)
            batch[key][rows] = self.planes(cells).reshape(values.shape)
        batch["obs"][rows] = self.planes(batch["obs"][rows])
        batch["next_obs"][rows] = self.planes(batch["next_obs"][rows])
        batch["action"][rows] = self.action_map[batch["action"][rows]]
        # new_mask[b] = old_mask[inverse[b]]: move b of the image is move inverse[b].
        batch["next_mask"][rows] = batch["next_mask"][rows][:, self.inverse_map]


def _dihedral(k: int, flip: bool) -> Planes:
    def planes(p: np.ndarray) -> np.ndarray:
        p = np.rot90(p, k, axes=(-3, -2))
        return np.ascontiguousarray(np.flip(p, axis=-2) if flip else p)

    return planes


def _identity(p: np.ndarray) -> np.ndarray:
    return p


DIHEDRAL: tuple[Planes, ...] = tuple(_dihedral(k, f) for k in range(4) for f in (False, True))
"""The 8 symmetries of a square board (identity first)."""
MIRROR: tuple[Planes, ...] = (_identity, _dihedral(0, True))
"""Identity and the left-right mirror (columns reversed)."""
HALF_TURN: tuple[Planes, ...] = (_identity, _dihedral(2, False))
"""Identity and the half turn."""


def board_symmetries(
    transforms: Sequence[Planes], action_grid: np.ndarray, extra_actions: int = 0
) -> list[Symmetry]:
    """Symmetries from plane transforms and the action each plane cell stands for.

    Args:
      transforms: maps of [..., H, W, C] planes (identity first).
      action_grid: int [H, W]: the action played on each cell (several cells may share
        one, as a Connect Four column does; -1 for cells no action names).
      extra_actions: actions after the grid's that no transform moves (a pass).

    Returns:
      One Symmetry per transform.
    """
    grid = np.asarray(action_grid, np.int64)
    num_actions = int(grid.max()) + 1 + extra_actions
    out = []
    for transform in transforms:
        image = transform(grid[..., None])[..., 0]
        # The cell that shows action a in the image held image[p]: a's move lands there.
        action_map = np.arange(num_actions)
        named = grid >= 0
        action_map[image[named]] = grid[named]
        out.append(Symmetry(transform, action_map))
    return out


def augment(
    batch: dict[str, np.ndarray],
    symmetries: Sequence[Symmetry],
    rng: np.random.Generator,
    point_columns: Sequence[str] = (),
) -> dict[str, np.ndarray]:
    """Maps each sampled transition through one of the symmetries, chosen uniformly.

    `point_columns` as `Symmetry.apply` takes them.
    """
    if len(symmetries) <= 1:
        return batch
    choice = rng.integers(0, len(symmetries), len(batch["action"]))
    for k, sym in enumerate(symmetries):
        rows = np.flatnonzero(choice == k)
        if rows.size:
            sym.apply(batch, rows, point_columns)
    return batch


class PermutationAugment:
    """`augment` in one gather per column, for symmetries that permute cells.

    A board symmetry moves cells and never changes their values, so each one is an
    index permutation of the flattened planes. `augment` applies the chosen images
    row by row with several array operations per symmetry; this applies them to the
    whole batch at once. It draws the same random numbers in the same order, so the
    batches are identical to `augment`'s.

    Args:
      symmetries: the symmetries, as given to `augment` (identity first).
      obs_shape: shape of one observation.
      point_columns: as `augment` takes them.

    Raises:
      ValueError: a symmetry's `planes` is not a permutation of cells (use `augment`).
    """

    def __init__(
        self,
        symmetries: Sequence[Symmetry],
        obs_shape: Sequence[int],
        point_columns: Sequence[str] = (),
    ):
        self.obs_shape = tuple(int(d) for d in obs_shape)
        self.size = len(symmetries)
        self.point_columns = tuple(point_columns)
        cells = int(np.prod(self.obs_shape))
        grid = np.arange(cells, dtype=np.int64).reshape(1, *self.obs_shape)
        points = np.arange(cells // self.obs_shape[-1]).reshape(1, *self.obs_shape[:-1], 1)
        perms, point_perms = [], []
        for sym in symmetries:
            perm = np.asarray(sym.planes(grid)).reshape(-1)
            if perm.shape != (cells,) or not np.array_equal(np.sort(perm), grid.reshape(-1)):
                raise ValueError("a symmetry's planes are not a permutation of the cells")
            perms.append(perm)
            point_perms.append(np.asarray(sym.planes(points)).reshape(-1))
        # image.flat[j] = original.flat[plane_index[k, j]] for symmetry k.
        self.plane_index = np.stack(perms).astype(np.intp)  # [K, H*W*C]
        self.point_index = np.stack(point_perms).astype(np.intp)  # [K, H*W]
        self.action_map = np.stack([s.action_map for s in symmetries])  # [K, A]
        self.mask_index = np.stack([s.inverse_map for s in symmetries])  # [K, A]
        # Rows drawn for an identity (the first symmetry, by convention) keep their cells.
        self._moved = [
            k for k in range(self.size) if not np.array_equal(self.plane_index[k], grid.ravel())
        ]

    @classmethod
    def try_build(
        cls, symmetries: Sequence[Symmetry], obs_shape: Sequence[int], point_columns=()
    ) -> PermutationAugment | None:
        """The fast path, or None where it does not apply (then use `augment`)."""
        try:
            return cls(symmetries, obs_shape, point_columns)
        except ValueError:
            return None

    def __call__(
        self, batch: dict[str, np.ndarray], rng: np.random.Generator
    ) -> dict[str, np.ndarray]:
        """Maps each transition through one symmetry chosen uniformly (like `augment`)."""
        if self.size <= 1:
            return batch
        n = len(batch["action"])
        choice = rng.integers(0, self.size, n)  # the draw `augment` makes
        # Rows grouped by symmetry, each group gathered along its cells with that
        # symmetry's one permutation (the identity's rows stay as they are): about
        # half the time of one gather through a [B, H*W*C] index built per batch.
        groups = [(k, np.flatnonzero(choice == k)) for k in self._moved]
        keys = [(key, self.plane_index) for key in ("obs", "next_obs")]
        for key, index in keys + [(key, self.point_index) for key in self.point_columns]:
            planes = np.ascontiguousarray(batch[key])
            flat = planes.reshape(n, -1)
            for k, rows in groups:
                if rows.size:
                    flat[rows] = flat.take(rows, axis=0).take(index[k], axis=1)
            batch[key] = planes
        action = batch["action"]
        actions = self.action_map.shape[1]
        batch["action"] = self.action_map.take(choice * actions + action).astype(
            action.dtype, copy=False
        )
        # One flat `take` over the rows' own offsets: a third of `take_along_axis`'s time.
        flat_index = self.mask_index.take(choice, axis=0) + actions * np.arange(n)[:, None]
        batch["next_mask"] = batch["next_mask"].take(flat_index)
        return batch


def make_augmenter(
    symmetries: Sequence[Symmetry], obs_shape: Sequence[int], point_columns: Sequence[str] = ()
) -> Callable[[dict[str, np.ndarray], np.random.Generator], dict[str, np.ndarray]]:
    """The augmentation for these symmetries.

    The permutation fast path where it applies, `augment` otherwise, nothing for one
    symmetry or none. `point_columns` as `augment` takes them.
    """
    if len(symmetries) <= 1:
        return lambda batch, rng: batch
    fast = PermutationAugment.try_build(symmetries, obs_shape, point_columns)
    if fast is not None:
        return fast
    return lambda batch, rng: augment(batch, symmetries, rng, point_columns)

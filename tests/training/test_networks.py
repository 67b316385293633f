import torch

from domino_env_training.config import NetworkConfig
from domino_env_training.networks import ActorCritic, masked_logits

OBS_DIM, NUM_ACTIONS = 6, 8


def tempting_network() -> ActorCritic:
    """A network whose raw logits strongly prefer actions 0..3."""
    net = ActorCritic(OBS_DIM, NUM_ACTIONS, NetworkConfig(hidden_sizes=[16]))
    with torch.no_grad():
        net.actor[-1].bias[:4] = 30.0
    return net


def random_masks(n: int, generator: torch.Generator) -> torch.Tensor:
    mask = torch.rand((n, NUM_ACTIONS), generator=generator) < 0.3
    mask[: n // 2, :4] = False  # half the rows forbid exactly the tempting actions
    mask[~mask.any(dim=1), 7] = True  # at least one legal action per row
    return mask


def test_masked_sampling_never_picks_an_illegal_action():
    generator = torch.Generator().manual_seed(0)
    net = tempting_network()
    obs = torch.randn((4000, OBS_DIM), generator=generator)
    mask = random_masks(4000, generator)
    sampled, _, _, _ = net.get_action_and_value(obs, mask, generator=generator)
    for action in (sampled, net.act(obs, mask, generator=generator), net.act(obs, mask, greedy=True)):
        assert mask[torch.arange(len(action)), action].all()
    # Sampling is not degenerate: rows with several legal actions see more than one of them.
    assert len(set(sampled[mask.sum(1) > 1].tolist())) > 1


def test_illegal_actions_have_zero_probability_and_finite_entropy():
    net = tempting_network()
    mask = torch.zeros((1, NUM_ACTIONS), dtype=torch.bool)
    mask[0, [5, 6]] = True
    dist = net.distribution(torch.randn((1, OBS_DIM)), mask)
    assert dist.probs[~mask].eq(0).all()
    assert torch.isfinite(dist.entropy()).all()


def test_loss_gives_no_gradient_to_illegal_logits():
    generator = torch.Generator().manual_seed(1)
    logits = torch.randn((64, NUM_ACTIONS), generator=generator, requires_grad=True)
    mask = random_masks(64, generator)
    legal_action = torch.multinomial(mask.float(), 1, generator=generator).squeeze(-1)
    dist = torch.distributions.Categorical(logits=masked_logits(logits, mask))
    advantages = torch.randn(64, generator=generator)
    loss = -(dist.log_prob(legal_action) * advantages).mean() - 0.01 * dist.entropy().mean()
    loss.backward()
    assert logits.grad[~mask].eq(0).all()
    assert logits.grad[mask].abs().sum() > 0


def test_network_loss_gradient_ignores_illegal_actions_end_to_end():
    """Through the real actor: the gradient reaching the actor's output is zero where illegal."""
    generator = torch.Generator().manual_seed(2)
    net = tempting_network()
    obs = torch.randn((32, OBS_DIM), generator=generator)
    mask = random_masks(32, generator)
    captured = {}

    def capture_gradient(_module, _inputs, logits):
        logits.register_hook(lambda grad: captured.update(g=grad))

    net.actor[-1].register_forward_hook(capture_gradient)
    action, logprob, entropy, value = net.get_action_and_value(obs, mask, generator=generator)
    (-logprob.mean() - entropy.mean() + value.pow(2).mean()).backward()
    assert captured["g"][~mask].eq(0).all()
    assert captured["g"][mask].abs().sum() > 0

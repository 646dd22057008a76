"""kumo_gym.training"""

"""kumo_gym.wrappers"""

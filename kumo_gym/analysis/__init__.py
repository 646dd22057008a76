"""kumo_gym.analysis"""

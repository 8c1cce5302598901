"""Stage 3, what a user builds: elements placed on a linear graph (Network), bodies, joints and
drivers (the planar and spatial Mechanism builders) and a Model's settings; vector networks out."""

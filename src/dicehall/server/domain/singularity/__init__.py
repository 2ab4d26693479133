"""Singularity, the site's pulse: live counts (:mod:`.counts`) and the latest moments worth
a look (:mod:`.moments` writes them as games and tournaments end, :mod:`.feed` reads them),
pushed to the pages that follow the site (``/api/v1/ws?singularity=1``)."""

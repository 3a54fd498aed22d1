# Attention Lab in one container, served on port 8501.
# Hugging Face Spaces (Docker SDK, app_port: 8501) and any container host run it as it is:
#   docker build -t attention-lab .
#   docker run --rm -p 127.0.0.1:8501:8501 attention-lab    # then open http://127.0.0.1:8501
# podman the same way, building with --format docker: its default (OCI) drops the HEALTHCHECK.
# On a school network, -p 8501:8501 and http://<this machine's address>:8501 (README, "Deploy").
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    OPENBLAS_NUM_THREADS=1

# nginx, in front of the app (scripts/serve.sh): it sends Streamlit's front-end files compressed
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/*

# Spaces run the container as UID 1000; the app runs as that user everywhere, never as root
RUN useradd --create-home --uid 1000 user
ENV HOME=/home/user
WORKDIR /home/user/app

# requirements first: code changes reuse the cached dependency layer
COPY requirements.txt .
RUN pip install -r requirements.txt

COPY --chown=user:user . .
# the class store's SQLite file (classroom/): a volume, so that a class outlives a new container;
# ATTENTION_LAB_CLASS_STORE=postgresql+psycopg://... puts it in PostgreSQL instead
RUN mkdir /data && chown user:user /data
ENV ATTENTION_LAB_DATA=/data
VOLUME /data
USER user

EXPOSE 8501
# the slim image has no curl; the standard library asks the health endpoint instead
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]

# Streamlit on 127.0.0.1 behind nginx on port 8501 (scripts/serve.sh): one process per CPU the
# container may use, as its memory allows (250 MB each), at most 4; a Space's free CPU basic
# hardware gets 2. nginx keeps each browser on its process with a cookie, by its address when the
# cookie does not come back (a Space's own page shows the app in a frame of another site), and
# finds a download's file on whichever process has it. .streamlit/config.toml holds the
# public-server settings. 0.0.0.0 is the container's own interface: the host decides what
# reaches it (-p 127.0.0.1:8501:8501 keeps it local). PYTHON: the image's Python already has
# requirements.txt, so no .venv is made.
ENV PYTHON=python \
    ADDRESS=0.0.0.0
CMD ["bash", "scripts/serve.sh"]

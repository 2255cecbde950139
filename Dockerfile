FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md ./
COPY service ./service
COPY variants ./variants
RUN pip install --no-cache-dir -e .
EXPOSE 8000
CMD ["gunicorn", "--config", "service/gunicorn_conf.py", "--bind", "0.0.0.0:8000", "service:create_app()"]

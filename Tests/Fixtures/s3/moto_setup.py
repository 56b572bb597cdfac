"""Prepares a moto S3 server (started with INITIAL_NO_AUTH_ACTION_COUNT=3) for the tests.

  moto_setup.py setup ENDPOINT OUT.json NAME=FILE...
      With the three unauthenticated actions: an IAM user `webimage`, a policy allowing
      every S3 action, and its access key. Then, signed with that key: buckets `allowed`
      (versioned) and `denied`, each object NAME uploaded to both from FILE, and a second
      version of the first object in `allowed` (the bytes of the last FILE). Writes
      {"access_key_id", "secret_access_key", "versions": {NAME: [old id, new id]}}.
  moto_setup.py put ENDPOINT KEY_ID SECRET BUCKET NAME FILE
      Uploads FILE as NAME (a new version of it).
"""
import json
import sys

import boto3


def client(service, endpoint, key_id="testing", secret="testing"):
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=key_id, aws_secret_access_key=secret)


def setup(endpoint, out, pairs):
    iam = client("iam", endpoint)
    iam.create_user(UserName="webimage")
    iam.put_user_policy(UserName="webimage", PolicyName="s3all", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="webimage")["AccessKey"]
    s3 = client("s3", endpoint, key["AccessKeyId"], key["SecretAccessKey"])
    for bucket in ("allowed", "denied"):
        s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket="allowed", VersioningConfiguration={"Status": "Enabled"})
    files = [pair.split("=", 1) for pair in pairs]
    versions = {}
    for name, path in files:
        body = open(path, "rb").read()
        for bucket in ("allowed", "denied"):
            answer = s3.put_object(Bucket=bucket, Key=name, Body=body, ContentType="application/octet-stream")
            if bucket == "allowed":
                versions[name] = [answer.get("VersionId")]
    first, last = files[0][0], files[-1][1]
    answer = s3.put_object(Bucket="allowed", Key=first, Body=open(last, "rb").read())
    versions[first].append(answer.get("VersionId"))
    json.dump({"access_key_id": key["AccessKeyId"], "secret_access_key": key["SecretAccessKey"],
               "versions": versions}, open(out, "w"))


def put(endpoint, key_id, secret, bucket, name, path):
    client("s3", endpoint, key_id, secret).put_object(Bucket=bucket, Key=name, Body=open(path, "rb").read())


if __name__ == "__main__":
    if sys.argv[1] == "setup":
        setup(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == "put":
        put(*sys.argv[2:8])
    else:
        raise SystemExit("usage: moto_setup.py setup|put …")
